import { BSON } from 'mongodb';
import mongoose from 'mongoose';
import type { Db } from 'mongodb';
import { DAILY_COUNTS_COLLECTION } from '../../libs/daily-counts/index.js';
import type { Filter } from './filter-branches.js';

/** A command a service sent to MongoDB, as the driver's command monitoring saw it. */
export interface MonitoredCommand {
  /** The service's database, without the system's prefix: `license`, `update_catalog`, ... */
  database: string;
  name: string;
  collection: string;
  command: Record<string, unknown>;
  /** The BSON size of the server's reply, once it has answered; absent until then, or on failure. */
  replyBytes?: number;
}

/** Commands the driver sends for itself, not for a request. */
const HOUSEKEEPING = new Set([
  'hello',
  'ismaster',
  'isMaster',
  'ping',
  'endSessions',
  'buildInfo',
  'getMore',
  'killCursors',
]);

/**
 * Settings of a system whose commands a test observes: the caches of products and plans kept
 * for the whole file, so that what a request is seen sending is its own commands, never a
 * cache's reading again because its entry expired during a slow run.
 */
export const WARM_CACHES = {
  PRODUCT_CACHE_TTL_MS: String(3_600_000),
  PLAN_CACHE_TTL_MS: String(3_600_000),
} as const;

/** `MONGODB_URL` with command monitoring on: what a system booted on it reports. */
export function monitoredMongoUrl(): string {
  const url = new URL(process.env.MONGODB_URL!);
  url.searchParams.set('monitorCommands', 'true');
  return url.toString();
}

/**
 * Records every command the connections of one system (its database prefix) send from now on,
 * but those of the databases left out. The system must have been booted on `monitoredMongoUrl()`.
 */
export function monitorCommands(
  databasePrefix: string,
  options: { leaveOut?: readonly string[] } = {},
): MonitoredCommand[] {
  const commands: MonitoredCommand[] = [];
  const leftOut = new Set((options.leaveOut ?? []).map((name) => `${databasePrefix}_${name}`));
  for (const connection of mongoose.connections) {
    if (!connection.name?.startsWith(`${databasePrefix}_`)) continue;
    if (leftOut.has(connection.name)) continue;
    const client = connection.getClient();
    // Commands in flight by request id, so that a reply's size is set on its own command.
    const waiting = new Map<number, MonitoredCommand>();
    client.on('commandStarted', (event) => {
      if (HOUSEKEEPING.has(event.commandName)) return;
      const command = event.command as Record<string, unknown>;
      const target = command[event.commandName];
      const monitored: MonitoredCommand = {
        database: event.databaseName.slice(databasePrefix.length + 1),
        name: event.commandName,
        collection: typeof target === 'string' ? target : '',
        command,
      };
      waiting.set(event.requestId, monitored);
      commands.push(monitored);
    });
    client.on('commandSucceeded', (event) => {
      const monitored = waiting.get(event.requestId);
      if (!monitored) return;
      waiting.delete(event.requestId);
      monitored.replyBytes = BSON.calculateObjectSize(event.reply as BSON.Document);
    });
    client.on('commandFailed', (event) => waiting.delete(event.requestId));
  }
  return commands;
}

/**
 * The commands requests caused: all but the writes of the overview's daily counts, which a timer
 * sends once a second whatever the requests (libs/daily-counts), so that one may land, or still
 * be waiting for its reply, inside any window a test observes.
 */
export function requestCommands(commands: readonly MonitoredCommand[]): MonitoredCommand[] {
  return commands.filter((command) => command.collection !== DAILY_COUNTS_COLLECTION);
}

/** The filters a command selects documents with. */
export function commandFilters({ name, command }: MonitoredCommand): Filter[] {
  switch (name) {
    case 'find':
    case 'count':
      return [(command.filter ?? command.query ?? {}) as Filter];
    case 'findAndModify':
      return [(command.query ?? {}) as Filter];
    case 'update':
      return (command.updates as Array<{ q: Filter }>).map((update) => update.q);
    case 'delete':
      return (command.deletes as Array<{ q: Filter }>).map((deletion) => deletion.q);
    case 'aggregate': {
      const first = (command.pipeline as Filter[])[0];
      return [first && '$match' in first ? (first.$match as Filter) : {}];
    }
    default:
      // insert, createIndexes, listIndexes: select nothing.
      return [];
  }
}

/** The indexes of the collection a command was sent to, as the key of each (fields and directions). */
export async function indexKeysOf(
  databasePrefix: string,
  { database, collection }: Pick<MonitoredCommand, 'database' | 'collection'>,
): Promise<Array<Record<string, unknown>>> {
  const connection = mongoose.connections.find((c) => c.name === `${databasePrefix}_${database}`);
  const db = connection?.db as Db | undefined;
  if (!db) throw new Error(`no connection to ${database}`);
  const indexes = await db.collection(collection).indexes();
  return indexes.map((index) => index.key);
}

/** The indexes of the collection a command was sent to, as the fields of each, in order. */
export async function indexesOf(
  databasePrefix: string,
  target: Pick<MonitoredCommand, 'database' | 'collection'>,
): Promise<string[][]> {
  return (await indexKeysOf(databasePrefix, target)).map((key) => Object.keys(key));
}
