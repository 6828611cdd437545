import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { MongoClient, type CommandStartedEvent } from 'mongodb';
import { MongoMemoryServer } from 'mongodb-memory-server';
import { LicensingError } from '../../libs/contracts/index.js';
import type { LicenseDocument } from '../../services/license/models.js';
import { MongoLicenseStore } from '../../services/license/licenses/mongo-license-store.js';
import { bootSystem, type TestSystem } from '../support/system.js';
import { newLicense } from '../../bench/support/license-store-fixtures.js';

/**
 * A database that stalls must not turn a request whose client got INTERNAL_ERROR into a change
 * made later: the caller's deadline travels with every RPC request, and handlers check it before
 * each write (docs/architecture.md). This file stalls its own MongoDB server (SIGSTOP), so it
 * never touches the server the other test files share.
 */

/** Far above an answer of the working database on a loaded machine; the stalled calls wait it out. */
const RPC_TIMEOUT_MS = 4000;
/** How long the licenses must stay unchanged before the handlers still running count as done. */
const SETTLE_MS = RPC_TIMEOUT_MS;
const WAIT_LIMIT_MS = 30_000;

let database: MongoMemoryServer | undefined;
let system: TestSystem | undefined;
let stalledPid: number | undefined;

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Stops the test MongoDB server and waits until every thread of it has stopped. SIGSTOP stops a
 * process with threads only once one of them has run to take the signal: on a loaded machine,
 * another thread woken by a request meanwhile can still answer it (Linux, /proc).
 */
async function stallDatabase(): Promise<void> {
  const pid = database?.instanceInfo?.instance.mongodProcess?.pid;
  if (pid === undefined) throw new Error('The test MongoDB server has no process to stall.');
  process.kill(pid, 'SIGSTOP');
  stalledPid = pid;
  const until = Date.now() + WAIT_LIMIT_MS;
  while (!allThreadsStopped(pid)) {
    if (Date.now() > until) throw new Error(`The test MongoDB server (${pid}) did not stop.`);
    await delay(1);
  }
}

/** Whether every thread of the process is stopped (state T in /proc/<pid>/task/<tid>/stat). */
function allThreadsStopped(pid: number): boolean {
  return readdirSync(`/proc/${pid}/task`).every((tid) => {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      return true; // the thread has ended since the listing
    }
    // The state follows the command name, which is in parentheses and may hold any character.
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state === 'T' || state === 't';
  });
}

/** Safe to call any number of times; also runs when the test process exits. */
function resumeDatabase(): void {
  if (stalledPid === undefined) return;
  try {
    process.kill(stalledPid, 'SIGCONT');
  } catch {
    // already gone
  }
  stalledPid = undefined;
}
process.once('exit', resumeDatabase);

/** Runs `work` while the database is stopped, and resumes it whatever happens. */
async function whileDatabaseStalls<T>(work: () => Promise<T>): Promise<T> {
  await stallDatabase();
  try {
    return await work();
  } finally {
    resumeDatabase();
  }
}

beforeAll(async () => {
  database = await MongoMemoryServer.create();
  system = await bootSystem({
    MONGODB_URL: database.getUri(),
    RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS),
  });
}, 120_000);

afterAll(async () => {
  resumeDatabase();
  await system?.stop();
  await database?.stop();
}, 60_000);

function sys(): TestSystem {
  if (!system) throw new Error('The system did not start.');
  return system;
}

async function activationsOf(keys: readonly string[]): Promise<Record<string, string[]>> {
  const entries = await Promise.all(
    keys.map(async (key) => {
      const license = await sys().transport.call('license.getLicense', { license_key: key });
      return [key, license.activations.map((a) => a.identifier).sort()] as const;
    }),
  );
  return Object.fromEntries(entries);
}

/** Polls until the database answers a read through the license service again. */
async function untilDatabaseAnswers(key: string): Promise<void> {
  const started = Date.now();
  for (;;) {
    try {
      await sys().transport.call('license.getLicense', { license_key: key });
      return;
    } catch (error) {
      if (Date.now() - started > WAIT_LIMIT_MS) throw error;
      await delay(100);
    }
  }
}

/**
 * The activations once they have stopped changing for SETTLE_MS: handlers that were waiting on
 * the stalled database need a few operations after it answers, and would write in that time.
 */
async function settledActivations(keys: readonly string[]): Promise<Record<string, string[]>> {
  const started = Date.now();
  let last = await activationsOf(keys);
  let unchangedSince = Date.now();
  while (Date.now() - unchangedSince < SETTLE_MS) {
    if (Date.now() - started > WAIT_LIMIT_MS) throw new Error('The licenses kept changing.');
    await delay(200);
    const next = await activationsOf(keys);
    if (JSON.stringify(next) !== JSON.stringify(last)) {
      last = next;
      unchangedSince = Date.now();
    }
  }
  return last;
}

describe('RPC deadlines', () => {
  test('activations and deactivations whose clients got INTERNAL_ERROR while the database stalled are not stored when it answers again', async () => {
    const licenses = await Promise.all(
      [1, 2, 3, 4].map(() => sys().license({ activation_limit: 10 })),
    );
    const keys = licenses.map((l) => l.key);
    // Two activations per license before the stall. The products are in the license service's
    // cache by now, so the handlers below wait on the database only.
    for (const key of keys) {
      for (const identifier of ['kept-1.example.com', 'kept-2.example.com']) {
        const res = await sys().post('activate', { license_key: key, identifier });
        expect(res.status).toBe(200);
      }
    }
    const before = await activationsOf(keys);
    for (const key of keys) {
      expect(before[key]).toEqual(['kept-1.example.com', 'kept-2.example.com']);
    }

    const answers = await whileDatabaseStalls(() =>
      Promise.all(
        keys.flatMap((key) => [
          sys().post('activate', { license_key: key, identifier: 'late-1.example.com' }),
          sys().post('activate', { license_key: key, identifier: 'late-2.example.com' }),
          sys().post('deactivate', { license_key: key, identifier: 'kept-1.example.com' }),
        ]),
      ),
    );
    for (const res of answers) {
      expect(res.status).toBe(500);
      expect(res.body.error.code).toBe('INTERNAL_ERROR');
    }

    await untilDatabaseAnswers(keys[0]!);
    expect(await settledActivations(keys)).toEqual(before);
  }, 120_000);

  test.each([
    ['still waiting for a connection when', 200],
    ['asking for a connection after', -1],
  ])(
    "a validate's count %s its caller's deadline passes is never sent",
    async (_when, msLeft) => {
      // A client with one connection: what comes after a stalled command waits for it.
      const client = await MongoClient.connect(database!.getUri(), {
        maxPoolSize: 1,
        monitorCommands: true,
      });
      try {
        const store = new MongoLicenseStore(
          client.db('rpc_deadlines').collection<LicenseDocument>('licenses'),
        );
        // What the client sent and heard, and when the database was resumed: said on a failure.
        const heard: string[] = [];
        const t0 = Date.now();
        const note = (what: string) => heard.push(`${Date.now() - t0} ms ${what}`);
        client.on('commandStarted', (e) => note(`${e.commandName} started`));
        client.on('commandSucceeded', (e) => note(`${e.commandName} succeeded`));
        client.on('commandFailed', (e) => note(`${e.commandName} failed`));
        client.on('connectionCheckOutStarted', () => note('check-out started'));
        client.on('connectionCheckedOut', (e) => note(`connection ${e.connectionId} checked out`));
        client.on('connectionCheckOutFailed', (e) => note(`check-out failed: ${e.reason}`));
        client.on('serverDescriptionChanged', (e) => note(`server now ${e.newDescription.type}`));
        const issued = await store.issue({
          license: newLicense(),
          now: new Date(),
        });
        if (issued.outcome !== 'issued') throw new Error('The license was not issued.');
        const licenseKey = issued.license.license_key;

        const { held, counted } = await whileDatabaseStalls(async () => {
          // The held command has the one connection before the count asks for it: the count then
          // waits in the pool, never on the wire, whatever the machine's load.
          const holding = new Promise<void>((resolve) => {
            const started = (event: CommandStartedEvent) => {
              if (event.commandName !== 'find') return;
              client.off('commandStarted', started);
              resolve();
            };
            client.on('commandStarted', started);
          });
          const held = store.findByKey(licenseKey);
          await holding;
          const deadline = Date.now() + msLeft;
          const counted = store
            .touchCheckIfMatching({
              licenseKey,
              productId: null,
              identifierKeys: null,
              at: new Date(),
              ip: '::1',
              checkId: randomUUID(),
              deadline,
            })
            .then(
              () => (note('count answered'), 'counted'),
              (error: unknown) => (note(`count failed: ${String(error)}`), error),
            );
          // The database answers again only once the count has given up, its deadline passed (on
          // the timer's clock: the wall clock of a loaded machine may jump), or, should it never
          // give up, after a bound: then the connection frees and an abandoned count would be sent.
          await Promise.race([counted, delay(Math.max(0, deadline - Date.now()) + WAIT_LIMIT_MS)]);
          note(`resumed, ${Date.now() - deadline} ms after the deadline`);
          return { held, counted };
        });
        await held;
        const outcome = await counted;
        const after = await store.findByKey(licenseKey);
        // On a failure, what the client sent and heard, in full (a diff would show a part of it).
        const problems = [
          ...(outcome instanceof LicensingError && outcome.code === 'INTERNAL_ERROR'
            ? []
            : [`the count ended ${String(outcome)}, not given up`]),
          ...(after?.check_count === 0 ? [] : [`check_count is ${after?.check_count}, not 0`]),
        ];
        if (problems.length > 0) throw new Error(`${problems.join('; ')}:\n${heard.join('\n')}`);
      } finally {
        await client.close();
      }
    },
    60_000,
  );
});
