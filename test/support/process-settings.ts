import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { processSettings, type ProcessSpec } from '../../libs/process/index.js';
import { downloadProcess } from '../../services/download/service.js';
import { gatewayProcess } from '../../services/gateway/service.js';
import { licenseProcess } from '../../services/license/service.js';
import { managementProcess } from '../../services/management/service.js';
import { storesProcess } from '../../services/stores/service.js';
import { updateCatalogProcess } from '../../services/update-catalog/service.js';
import { webhooksProcess } from '../../services/webhooks/service.js';

/**
 * What each entry point (`services/<name>/main.ts`) reads of the configuration and cannot start
 * without, as its service.ts declares it: what the deployment files (docker-compose.yml,
 * infra/kubernetes) are checked against.
 */

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Folders under services/ with an entry point of their own (all-in-one runs them all). */
export function entryPoints(): string[] {
  return readdirSync(path.join(root, 'services'), { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== 'all-in-one')
    .filter((d) => existsSync(path.join(root, 'services', d.name, 'main.ts')))
    .map((d) => d.name)
    .sort();
}

/** The process of each entry point, by name. */
export const processes: Record<string, ProcessSpec> = Object.fromEntries(
  [
    gatewayProcess,
    managementProcess,
    licenseProcess,
    updateCatalogProcess,
    downloadProcess,
    webhooksProcess,
    storesProcess,
  ].map((spec) => [spec.name, spec]),
);

export function processOf(name: string): ProcessSpec {
  const spec = processes[name];
  if (!spec) throw new Error(`services/${name}/main.ts: its process is not imported here`);
  return spec;
}

/**
 * The settings an entry point cannot start without: AMQP_URL when it reaches the message bus (no
 * in-process bus outside all-in-one), and those its process requires.
 */
export function requiredSettings(spec: ProcessSpec): string[] {
  const required = new Set<string>(spec.required);
  if (spec.settings.includes('AMQP_URL')) required.add('AMQP_URL');
  return [...required].sort();
}

/** Every setting an entry point reads: those of its process, and those every process reads. */
export function settingsRead(spec: ProcessSpec): string[] {
  return [...new Set([...processSettings, ...spec.settings])].sort();
}
