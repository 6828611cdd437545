import type { Connection } from 'mongoose';

/**
 * The start-up steps done once in the license database: each leaves a marker here under its name
 * once done, and a start that finds the marker skips the step.
 */
export const MIGRATIONS_COLLECTION = 'migrations';

/** Licenses stored before their activations were counted get their counts (`countStoredActivations`). */
export const COUNT_STORED_ACTIVATIONS = 'count-stored-activations';

/** Trials stored before their trial key get it (`keyStoredTrials`). */
export const KEY_STORED_TRIALS = 'key-stored-trials';

interface MigrationMarker {
  _id: string;
  done_at: Date;
}

/**
 * Runs `step` unless its marker says it was done, then leaves the marker. A step must be safe to
 * run again and by several replicas at once: replicas starting together may each run it, and a
 * start that stops before the marker is written runs it again next time.
 */
export async function runOnce(
  db: Connection,
  name: string,
  step: () => Promise<unknown>,
): Promise<void> {
  const markers = db.collection<MigrationMarker>(MIGRATIONS_COLLECTION);
  if (await markers.findOne({ _id: name })) return;
  await step();
  await markers.updateOne(
    { _id: name },
    { $setOnInsert: { done_at: new Date() } },
    { upsert: true },
  );
}
