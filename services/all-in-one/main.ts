// First: tracing must be registered before the libraries it traces are loaded.
import '../../libs/observability/tracing.js';
import { parseArgs } from 'node:util';
import { configVariables } from '../../libs/config/index.js';
import { runProcess } from '../../libs/process/index.js';
import { banner } from './banner.js';
import { startSystem } from './system.js';

const USAGE = `Usage: npm start [-- --ephemeral]

Runs every service in one process, on embedded defaults where nothing is configured.
  --ephemeral   keep nothing: data lives in a temporary directory removed at stop
                (the same as DATA_DIR= )
Configuration: environment variables (README.md, Configuration).
`;

function parseCommandLine(): { ephemeral: boolean } {
  try {
    const { values } = parseArgs({
      options: { ephemeral: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
    });
    if (values.help) {
      process.stdout.write(USAGE);
      process.exit(0);
    }
    return { ephemeral: values.ephemeral === true };
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
}

if (parseCommandLine().ephemeral) process.env.DATA_DIR = '';

/** `npm start`: the whole system in one process, on embedded defaults where nothing is set. */
runProcess({ name: 'all-in-one', settings: configVariables }, async (config, logger, ops) => {
  const system = await startSystem({ config, logger, readiness: ops.readiness });
  // Printed plainly (not as a log line): this is what a person starting the system reads.
  process.stdout.write(banner(system, ops.url));
  return system.stop;
});
