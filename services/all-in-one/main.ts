import { runProcess } from '../../libs/process/index.js';
import { startSystem } from './system.js';

/** `npm start`: the whole system in one process, on embedded defaults where nothing is set. */
runProcess('all-in-one', async (config, logger) => {
  const system = await startSystem({ config, logger });
  const lines = [
    `Gateway:        ${system.gatewayUrl}`,
    `Public API:     ${system.gatewayUrl}/api/index.php/v1/licensing`,
    `Management API: ${system.managementUrl}/admin/v1`,
    `Admin token:    ${system.adminToken}`,
  ];
  // Printed plainly (not as log JSON): this is what a person starting the system reads.
  process.stdout.write(`${lines.join('\n')}\n`);
  return system.stop;
});
