import { bootSystem, type TestSystem } from '../support/system.js';

const PAST = '2020-01-01T00:00:00.000Z';

// The scheduler's own runs and its job records, as `license.listTasks` reports them over the
// transport, with Agenda running the tasks (services/license/lifecycle/scheduler.ts).
describe('scheduled tasks listed (license.listTasks) while the scheduler runs them', () => {
  let system: TestSystem;
  beforeAll(async () => {
    system = await bootSystem({
      SCHEDULED_TASKS: 'on',
      EXPIRY_TASK_EVERY: '1 second',
      PRUNE_TASK_EVERY: '2 hours',
      SCHEDULER_POLL_EVERY: '1 second',
      // Agenda keeps a timer of half this after each run; a short one lets the test process end.
      SCHEDULED_TASK_TIMEOUT: '2 seconds',
    });
  });
  afterAll(async () => {
    await system?.stop();
  });

  test("a scheduled run is kept as the task's last run; the next run is Agenda's", async () => {
    await system.license({ expires_at: PAST });
    const expiry = async () =>
      (await system.transport.call('license.listTasks', {})).tasks.find(
        (task) => task.name === 'license-expiry',
      );
    let task = await expiry();
    for (let i = 0; i < 60 && !task?.last_run?.affected; i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      task = await expiry();
    }
    expect(task).toMatchObject({
      interval: '1 second',
      last_run: { trigger: 'scheduled', error: null, affected: expect.any(Number) },
      next_run_at: expect.any(String),
    });
    const pruning = (await system.transport.call('license.listTasks', {})).tasks[1];
    expect(pruning).toMatchObject({ name: 'rejected-attempt-pruning', interval: '2 hours' });
    expect(Date.parse(pruning?.next_run_at ?? '')).toBeGreaterThan(Date.now() - 60_000);
  });

  test('a run on demand is answered with its result and listed as on-demand', async () => {
    const ran = await system.transport.call('license.runTask', {
      name: 'rejected-attempt-pruning',
    });
    expect(ran).toEqual({
      name: 'rejected-attempt-pruning',
      ran_at: expect.any(String),
      affected: 0,
    });
    const listed = (await system.transport.call('license.listTasks', {})).tasks[1];
    expect(listed?.last_run).toEqual({
      ran_at: ran.ran_at,
      trigger: 'on-demand',
      affected: 0,
      error: null,
    });
  });
});

describe('scheduled tasks listed with SCHEDULED_TASKS=off', () => {
  test('no next run; a run on demand still works', async () => {
    const system = await bootSystem({ SCHEDULED_TASKS: 'off' });
    try {
      const { key } = await system.license({ expires_at: PAST });
      expect((await system.transport.call('license.listTasks', {})).tasks).toEqual([
        { name: 'license-expiry', interval: '1 minute', last_run: null, next_run_at: null },
        { name: 'rejected-attempt-pruning', interval: '1 hour', last_run: null, next_run_at: null },
        {
          name: 'activation-lease-release',
          interval: '1 minute',
          last_run: null,
          next_run_at: null,
        },
      ]);
      expect(
        await system.transport.call('license.runTask', { name: 'license-expiry' }),
      ).toMatchObject({ affected: 1 });
      expect((await system.transport.call('license.getLicense', { license_key: key })).status).toBe(
        'expired',
      );
    } finally {
      await system.stop();
    }
  });
});
