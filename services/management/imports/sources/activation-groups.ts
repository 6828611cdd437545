import type { ImportedActivation, ImportSource, RefusedRecord } from '../imported-license.js';
import { refusal } from './fields.js';

/**
 * The activations of a source whose activations come apart from its licenses (a second file),
 * grouped by the license they name, for the licenses read after them to take their own. Only
 * the activations are held, not the licenses: 200,000 of them take some tens of megabytes. The
 * groups no license took are refused at the end, each by the row of its first activation.
 */
export class ActivationGroups {
  private readonly groups = new Map<string, { line: number; activations: ImportedActivation[] }>();

  constructor(
    private readonly source: ImportSource,
    private readonly describe: (license: string) => string,
  ) {}

  add(license: string, line: number, activation: ImportedActivation): void {
    const group = this.groups.get(license);
    if (group === undefined) this.groups.set(license, { line, activations: [activation] });
    else group.activations.push(activation);
  }

  /** The license's activations, taken out so that none is given twice. */
  take(license: string): ImportedActivation[] {
    const group = this.groups.get(license);
    this.groups.delete(license);
    return group?.activations ?? [];
  }

  *unclaimed(): Generator<RefusedRecord> {
    for (const [license, group] of this.groups) {
      const count = group.activations.length;
      yield refusal(
        this.source,
        group.line,
        null,
        `activations file: ${count} activation${count === 1 ? '' : 's'} for ${this.describe(license)}, which is in no row of the licenses file`,
      );
    }
    this.groups.clear();
  }
}
