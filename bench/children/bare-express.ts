/**
 * The baseline of every CPU figure: a bare Express app in a process of its own that parses an
 * urlencoded form and answers JSON, the least any form endpoint does. Prints `{ready, url}`.
 */
import express from 'express';
import { runHelper } from './helper.js';

runHelper(async () => {
  const app = express();
  app.post('/form', express.urlencoded({ extended: false }), (req, res) => {
    const fields = req.body as Record<string, unknown>;
    res.json({ data: { ok: true, fields: Object.keys(fields).length } });
  });
  const server = await new Promise<ReturnType<typeof app.listen>>((resolve, reject) => {
    const listening = app.listen(0, '127.0.0.1', (error?: Error) =>
      error ? reject(error) : resolve(listening),
    );
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return {
    info: { url: `http://127.0.0.1:${address.port}` },
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
});
