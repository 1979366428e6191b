/** Process entry (`npm start`): the server (serve.ts), then the start line that says what runs. */
import { serve } from './serve.js';
import { startSummary } from './start-summary.js';

const { app, config } = await serve();
const summary = startSummary(config);
app.log.info(summary.fields, summary.message);
