/**
 * The baseline of every CPU figure: a bare Express app in a process of its own that parses an
 * urlencoded form and answers JSON, the least any form endpoint does. Prints `{ready, url}`.
 */
import express from 'express';
import { listenOnLoopback, runHelper } from './helper.js';

runHelper(async () => {
  const app = express();
  app.post('/form', express.urlencoded({ extended: false }), (req, res) => {
    const fields = req.body as Record<string, unknown>;
    res.json({ data: { ok: true, fields: Object.keys(fields).length } });
  });
  const served = await listenOnLoopback(app);
  return { info: { url: served.url }, stop: served.close };
});
