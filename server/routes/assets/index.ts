/**
 * Public files and pages outside the API: the widget's scripts (`widget-scripts.ts`), the hosted
 * chat page (`chat-page.ts`), the playground (`demo.ts`), the console (`console.ts`) and uploaded
 * chatbot icons (`icons.ts`).
 */
import type { FastifyInstance } from 'fastify';
import chatPage from './chat-page.js';
import consoleFiles from './console.js';
import demo from './demo.js';
import icons from './icons.js';
import widgetScripts from './widget-scripts.js';

export async function assetRoutes(app: FastifyInstance) {
  for (const routes of [widgetScripts, chatPage, demo, consoleFiles, icons]) await app.register(routes);
}
