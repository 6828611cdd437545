import { API_BASE } from '../../libs/contracts/api-base.js';
import { ADMIN_BASE } from '../management/routes.js';
import type { RunningSystem } from './system.js';

/** The first characters of a secret, enough to tell which one it is. */
function shortened(secret: string): string {
  return `${secret.slice(0, 4)}…`;
}

/**
 * The admin token's line. A terminal's output ends up in scroll-back, screenshots and CI logs,
 * so a token that can be read elsewhere (its file, ADMIN_TOKENS) is shown only by its start; a
 * token of this run alone (nothing kept) is shown whole, as nothing else holds it.
 */
export function adminTokenLine(
  token: string,
  setup: Pick<RunningSystem['setup'], 'adminTokenFile' | 'adminTokenFromSettings'>,
): string {
  if (setup.adminTokenFile) return `${shortened(token)}   (kept in ${setup.adminTokenFile})`;
  if (setup.adminTokenFromSettings) return `${shortened(token)}   (from ADMIN_TOKENS)`;
  return `${token}   (this run only: nothing is kept)`;
}

/** What a person starting the system reads: where to reach it and what it runs on. */
export function banner(system: RunningSystem, operationsUrl: string): string {
  const { setup } = system;
  const token = adminTokenLine(system.adminToken, setup);
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
