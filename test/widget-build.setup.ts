/** vitest globalSetup: builds dist/widget when it is missing or older than the widget sources. */
import { buildWidget, widgetIsStale } from '../widget/build.js';

export default async function setup() {
  if (widgetIsStale()) await buildWidget();
}
