/** Types of scripts/stale.mjs (plain JavaScript so `npm start` needs no TypeScript loader). */
export declare const ROOT: string;
export declare function newestSource(paths: string[]): number;
export declare const SERVER_SOURCES: string[];
export declare const SERVER_OUTPUTS: string[];
export declare function serverIsStale(): boolean;
export declare function widgetIsStale(): boolean;
