import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';

/**
 * Ports for a process that is started later and must listen on a port known beforehand (a
 * RabbitMQ node, a Redis server, the benchmark's services). The kernel's own pick (port 0) comes
 * from its ephemeral range, the range it also takes every outgoing connection's local port from:
 * on a busy machine, a connection made between the pick and the listen takes the port, and the
 * listen fails with EADDRINUSE. So the ports are drawn at random below that range, where only
 * listeners go, and each is checked free by listening on it.
 */

const LOWEST = 10_000;
/** Below the ephemeral range of Linux (32768) and of the IANA range other systems use (49152). */
const BELOW_EPHEMERAL = 32_768;
const TRIES = 200;

/** Ports from `from` up to, not including, `to`. */
export interface PortRange {
  from: number;
  to: number;
}

/** Where the kernel's ephemeral range starts (Linux tells; elsewhere its usual start). */
function ephemeralStart(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/);
    const port = Number(low);
    return Number.isInteger(port) && port > LOWEST
      ? Math.min(port, BELOW_EPHEMERAL)
      : BELOW_EPHEMERAL;
  } catch {
    return BELOW_EPHEMERAL;
  }
}

/** Listens on the port on the loopback interface; null when something else holds it. */
function hold(port: number): Promise<Server | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(null));
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

/**
 * `count` distinct TCP ports of `range` (by default: below the ephemeral range) nobody listens on
 * right now on the loopback interface (each is held until all are picked, so none is picked twice).
 */
export async function freePorts(
  count: number,
  range: PortRange = { from: LOWEST, to: ephemeralStart() },
): Promise<number[]> {
  const held: Server[] = [];
  const ports: number[] = [];
  try {
    for (let tries = 0; ports.length < count; tries++) {
      if (tries === TRIES) throw new Error(`no free port in ${range.from}–${range.to - 1}`);
      const port = randomInt(range.from, range.to);
      if (ports.includes(port)) continue;
      const server = await hold(port);
      if (!server) continue;
      held.push(server);
      ports.push(port);
    }
    return ports;
  } finally {
    await Promise.all(held.map((server) => new Promise((resolve) => server.close(resolve))));
  }
}

/** A TCP port nobody listens on right now, outside the ephemeral range. */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port as number;
}
