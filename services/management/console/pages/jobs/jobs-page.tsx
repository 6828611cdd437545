import { Tasks } from './tasks.js';
import { Health } from './health.js';
import { SigningKeys } from './signing-keys.js';

/** The Jobs and health page: the scheduled tasks, the services' health, the signing keys. */
export function JobsPage() {
  return (
    <section aria-labelledby="operations-heading">
      <h1 id="operations-heading">Jobs and health</h1>
      <Tasks />
      <Health />
      <SigningKeys />
    </section>
  );
}
