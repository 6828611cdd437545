import { PollLoop } from '../../libs/process/poll-loop.js';
import { eventually } from '../support/eventually.js';

/**
 * libs/process/poll-loop.ts: the loop the webhook sender and the store event applier look for
 * their due work with.
 */
function loop(turn: (count: number) => Promise<void>, intervalMs = 60_000) {
  let turns = 0;
  const errors: unknown[] = [];
  const polling = new PollLoop({
    intervalMs,
    turn: () => turn(++turns),
    onError: (error) => errors.push(error),
  });
  return { polling, errors, turns: () => turns };
}

describe('PollLoop: a turn at start, after each interval, or at once when nudged', () => {
  test('started, it takes a turn at once, and no other before its interval', async () => {
    const { polling, turns } = loop(async () => {});
    polling.start();
    polling.start();
    await eventually('the first turn', () => turns() === 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(turns()).toBe(1);
    await polling.stop();
  });

  test('a nudge during a turn gives another turn right after it, never two at once', async () => {
    let running = 0;
    let most = 0;
    let release = () => {};
    const { polling, turns } = loop(async (count) => {
      running++;
      most = Math.max(most, running);
      if (count === 1) await new Promise<void>((resolve) => (release = resolve));
      running--;
    });
    polling.start();
    await eventually('the first turn under way', () => turns() === 1);
    polling.nudge();
    polling.nudge();
    release();
    await eventually('the turn the nudge asked for', () => turns() === 2);
    expect(most).toBe(1);
    await polling.stop();
    expect(turns()).toBe(2);
  });

  test('a turn that throws is reported, and the loop goes on', async () => {
    const { polling, errors, turns } = loop(async (count) => {
      if (count === 1) throw new Error('the database went away');
    }, 10);
    polling.start();
    await eventually('a turn after the failure', () => turns() >= 2);
    await polling.stop();
    expect(errors).toEqual([new Error('the database went away')]);
  });

  test('stop waits for the turn under way, and no turn starts after it', async () => {
    let release = () => {};
    let finished = false;
    const { polling, turns } = loop(async () => {
      await new Promise<void>((resolve) => (release = resolve));
      finished = true;
    }, 10);
    polling.start();
    await eventually('the turn under way', () => turns() === 1);
    expect(polling.stopped).toBe(false);
    const stopping = polling.stop();
    expect(polling.stopped).toBe(true);
    polling.nudge();
    release();
    await stopping;
    expect(finished).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(turns()).toBe(1);
  });
});
