/** The package ships no types: it returns prom2json's shape, typed where it is read (prometheus.ts). */
declare module 'parse-prometheus-text-format' {
  export default function parsePrometheusTextFormat(text: string): unknown;
}
