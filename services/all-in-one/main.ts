// First: tracing must be registered before the libraries it traces are loaded.
import '../../libs/observability/tracing.js';
import { parseArgs } from 'node:util';
import { configVariables } from '../../libs/config/index.js';
import { runProcess } from '../../libs/process/index.js';
import { API_BASE } from '../gateway/paths.js';
import { ADMIN_BASE } from '../management/routes.js';
import { startSystem, type RunningSystem } from './system.js';

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

/** What a person starting the system reads: where to reach it and what it runs on. */
function banner(system: RunningSystem, operationsUrl: string): string {
  const { setup } = system;
  const token = setup.adminTokenFile
    ? `${system.adminToken}   (kept in ${setup.adminTokenFile})`
    : system.adminToken;
  const signingKey = setup.signingKeyFile
    ? `${setup.signingKid}   (kept in ${setup.signingKeyFile})`
    : setup.signingKid;
  return [
    'Licensing service: every service in this process',
    `  Admin console:   ${system.managementUrl}/`,
    `  Admin token:     ${token}`,
    `  Signing key:     ${signingKey}`,
    `  Customer portal: ${system.gatewayUrl}/portal`,
    `  Public API:      ${system.gatewayUrl}${API_BASE}`,
    `  Management API:  ${system.managementUrl}${ADMIN_BASE}`,
    `  API reference:   ${system.gatewayUrl}/docs, ${system.managementUrl}/docs`,
    `  Message bus:     ${setup.transport}`,
    `  Database:        ${setup.database}`,
    `  Package storage: ${setup.storage}`,
    `  Data directory:  ${setup.dataDirectory ?? 'none (ephemeral): nothing is kept after stop'}`,
    `  Operations:      ${operationsUrl}/metrics, /healthz, /readyz`,
    'Stop with Ctrl+C.',
    '',
  ].join('\n');
}

if (parseCommandLine().ephemeral) process.env.DATA_DIR = '';

/** `npm start`: the whole system in one process, on embedded defaults where nothing is set. */
runProcess({ name: 'all-in-one', settings: configVariables }, async (config, logger, ops) => {
  const system = await startSystem({ config, logger, readiness: ops.readiness });
  // Printed plainly (not as a log line): this is what a person starting the system reads.
  process.stdout.write(banner(system, ops.url));
  return system.stop;
});
