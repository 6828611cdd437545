import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { freePorts } from '../../bench/support/free-ports.js';

/**
 * The ports a test or the benchmark picks for a process started later: outgoing connections take
 * their local ports from the kernel's ephemeral range, so a port picked there can be gone by the
 * time the process listens (EADDRINUSE).
 */

const ephemeralStart = Number(
  readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0],
);

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

describe('free ports for processes started later', () => {
  test('are distinct and drawn below the ephemeral range, from 10000', async () => {
    const ports = await freePorts(50);
    expect(new Set(ports).size).toBe(50);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(Math.min(ephemeralStart, 32_768));
    }
  });

  test('are free to listen on once picked', async () => {
    const servers = await Promise.all((await freePorts(5)).map(listen));
    await Promise.all(servers.map(close));
  });

  test('never include a port another process listens on', async () => {
    // Two neighbouring free ports; the first is taken, so a draw from the two gives the second.
    let taken: Server | undefined;
    let port = 0;
    while (!taken) {
      [port] = (await freePorts(1)) as [number];
      taken = await listen(port).catch(() => undefined);
      const next = await listen(port + 1).catch(() => undefined);
      if (next) await close(next);
      else if (taken) {
        await close(taken);
        taken = undefined;
      }
    }
    try {
      for (let i = 0; i < 20; i++) {
        expect(await freePorts(1, { from: port, to: port + 2 })).toEqual([port + 1]);
      }
      await expect(freePorts(1, { from: port, to: port + 1 })).rejects.toThrow(
        `no free port in ${port}–${port}`,
      );
    } finally {
      await close(taken);
    }
  });
});
