import { connect, createServer, type Server, type Socket } from 'node:net';
import { freePort } from '../../bench/support/free-ports.js';

/**
 * A TCP proxy that stands for a server that can be stopped and started again on its port: the
 * test MongoDB server in the fault suite's database outage, the shared RabbitMQ broker in the
 * transport's recovery tests (which must never stop the real one).
 *
 * Why a proxy rather than stopping the server: the test MongoDB server keeps its data in memory
 * only, so a real stop and start would come back empty (every license gone), which is not what
 * happens to a real MongoDB restart, whose data directory survives. What clients see of a
 * stopped server is reproduced here instead: `stop()` closes the listening socket (new
 * connections are refused) and destroys every connection through it (open ones are reset);
 * `start()` listens on the same port again, like a server restarted on its port. `refuse()` is a
 * server that is down but whose port still answers: every connection through the proxy, open or
 * new, is reset at once, and the new ones are counted (`refused`), so a test can tell how many
 * times a client has tried to reconnect.
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private boundPort = 0;
  private refusing = false;
  /** Connections reset on arrival while refusing. */
  refused = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  get port(): number {
    return this.boundPort;
  }

  get listening(): boolean {
    return this.server !== undefined;
  }

  /**
   * Listens on its port: a free one below the kernel's ephemeral range the first time, the same
   * one on every later start. While it is stopped, its clients' reconnections take local ports
   * from the ephemeral range, and one of them could hold a port picked there.
   */
  async start(): Promise<void> {
    const port = this.boundPort || (await freePort());
    const server = createServer((client) => this.relay(client));
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        this.boundPort = port;
        this.server = server;
        resolve();
      });
    });
  }

  private relay(client: Socket): void {
    if (this.refusing) {
      this.refused += 1;
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(this.targetPort, this.targetHost);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.setNoDelay(true);
      socket.once('close', () => this.sockets.delete(socket));
    }
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  }

  /** Resets every open connection and every new one (counted in `refused`) until `relayAgain()`. */
  refuse(): void {
    this.refusing = true;
    this.resetAll();
  }

  /** Relays new connections again after `refuse()`. */
  relayAgain(): void {
    this.refusing = false;
  }

  /** Refuses new connections and resets every open one. */
  stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.resetAll();
    if (server === undefined) return Promise.resolve();
    return new Promise((resolve) => server.close(() => resolve()));
  }

  private resetAll(): void {
    for (const socket of this.sockets) {
      try {
        socket.resetAndDestroy();
      } catch {
        socket.destroy();
      }
    }
    this.sockets.clear();
  }
}
