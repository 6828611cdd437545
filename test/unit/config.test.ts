import { intervalMs, loadConfig, scheduleSettings } from '../../libs/config/index.js';

describe('configuration (README: Configuration)', () => {
  test('defaults: gateway on 8080, management on 8081, embedded infrastructure', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ PORT: 8080, ADMIN_PORT: 8081, ADMIN_TOKENS: [] });
    for (const name of [
      'AMQP_URL',
      'MONGODB_URL',
      'REDIS_URL',
      'S3_ENDPOINT',
      'PUBLIC_URL',
    ] as const)
      expect(config[name]).toBeUndefined();
  });

  test('spec 8 defaults: 20 activate calls per key per hour, 60 update checks per minute', () => {
    const config = loadConfig({});
    expect(config.RATE_LIMIT_ACTIVATIONS_PER_KEY_PER_HOUR).toBe(20);
    expect(config.RATE_LIMIT_UPDATES_PER_MINUTE).toBe(60);
  });

  test('ADMIN_TOKENS is a comma-separated list; blanks are dropped', () => {
    expect(loadConfig({ ADMIN_TOKENS: ' one, ,two ' }).ADMIN_TOKENS).toEqual(['one', 'two']);
  });

  test.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['AMQP_URL', 'not a url'],
    ['RATE_LIMIT_UPDATES_PER_MINUTE', '0'],
    ['LOG_LEVEL', 'loud'],
  ])('a bad %s (%j) refuses to start, naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  test('the scheduled tasks run every minute (expiry) and hour (pruning) by default', () => {
    expect(scheduleSettings(loadConfig({}))).toEqual({
      enabled: true,
      expiryEvery: '1 minute',
      pruneEvery: '1 hour',
      pollEvery: '10 seconds',
      taskTimeoutMs: 5 * 60_000,
    });
    expect(intervalMs('90 seconds')).toBe(90_000);
    expect(intervalMs('1 day')).toBe(86_400_000);
    expect(() => loadConfig({ EXPIRY_TASK_EVERY: 'often' })).toThrow('EXPIRY_TASK_EVERY');
  });
});
