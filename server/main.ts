/** Process entry (`npm start`): the server (serve.ts), then the start line that says what runs (and, on a fresh install, where the first owner sets a password). */
import { serve } from './serve.js';
import { firstRunLink, startSummary } from './start-summary.js';

const { app, config } = await serve();
const summary = startSummary(config, await firstRunLink(app, config.siteUrl));
app.log.info(summary.fields, summary.message);
