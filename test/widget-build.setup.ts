/** vitest globalSetup: builds dist/widget when it is missing or older than the widget sources. */
import { widgetIsStale } from '../scripts/stale.mjs';

export default async function setup() {
  if (widgetIsStale()) await (await import('../widget/build.js')).buildWidget();
}
