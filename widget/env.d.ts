declare module '*.css?inline' {
  const css: string;
  export default css;
}
/** The chat chunk's file name, set by the build (widget/build.ts). */
declare const __PARLEY_APP__: string;
