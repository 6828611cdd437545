import { DEFAULT_EXEMPT_LIMIT, defaultExpiryTerms } from '../../../libs/contracts/index.js';
import { isDuplicateKey, setOf, withId, type Sequences } from '../../../libs/database/index.js';
import type { Logger } from '../../../libs/logging/index.js';
import type { LicenseModels, PlanDocument } from '../models.js';
import { duplicatePlanRenames } from './plan-names.js';
import { planNameKey } from '../rules.js';
import type { BeforeEachWrite, PlanChanges, PlanNameTakenOutcome, PlanStore } from '../stores.js';
import type { NewPlan, PlanRecord } from '../records.js';

function planRecord(doc: PlanDocument): PlanRecord {
  const { id, name, activation_type, activation_limit, created_at } = withId(doc);
  return {
    id,
    name,
    activation_type,
    activation_limit,
    // Plans stored before leases and exemptions existed have no such fields.
    lease_seconds: doc.lease_seconds ?? null,
    exempt_identifiers: doc.exempt_identifiers ?? [],
    exempt_limit: doc.exempt_limit ?? DEFAULT_EXEMPT_LIMIT,
    // Nor, before usage counters, these: such a plan counts no usage.
    max_uses: doc.max_uses ?? null,
    uses_reset: doc.uses_reset ?? 'never',
    // Plans stored before trials existed issue none.
    trial_days: doc.trial_days ?? null,
    // Nor, before entitlements, this: such a plan grants none.
    entitlements: doc.entitlements ?? [],
    // Plans stored before expiry terms existed have the spec's: revoke, no grace.
    expiry_strategy: doc.expiry_strategy ?? defaultExpiryTerms.expiry_strategy,
    grace_days: doc.grace_days ?? defaultExpiryTerms.grace_days,
    renewal_basis: doc.renewal_basis ?? defaultExpiryTerms.renewal_basis,
    created_at,
  };
}

/**
 * At start, before the unique index on `name_key` is built: plans stored under one name before
 * names were unique are renamed (`duplicatePlanRenames`), one log line each, and every plan gets
 * the key of its name. Replicas starting at once write the same.
 */
export async function keepPlanNamesUnique(
  Plan: LicenseModels['Plan'],
  logger: Logger,
): Promise<void> {
  const plans = await Plan.find({}, { name: 1, name_key: 1 })
    .sort({ _id: 1 })
    .lean<Array<Pick<PlanDocument, '_id' | 'name'> & { name_key?: string }>>();
  const renames = new Map(duplicatePlanRenames(plans.map(withId)).map((r) => [r.id, r]));
  for (const plan of plans) {
    const rename = renames.get(plan._id);
    const name = rename?.name ?? plan.name;
    if (plan.name === name && plan.name_key === planNameKey(name)) continue;
    await Plan.updateOne({ _id: plan._id }, { $set: { name, name_key: planNameKey(name) } });
    if (rename) {
      logger.warn(
        { plan_id: rename.id, previous_name: rename.previousName, name, kept_by: rename.keptBy },
        'plan renamed: plan names are unique and an earlier plan has its name',
      );
    }
  }
  await Plan.createIndexes();
}

export class MongoPlanStore implements PlanStore {
  constructor(
    private readonly Plan: LicenseModels['Plan'],
    private readonly sequences: Sequences,
  ) {}

  /** After a duplicate key: the plan other than `id` that has the name of `key`, if one does. */
  private async nameTaken(key: string, id: number): Promise<PlanNameTakenOutcome | null> {
    const holder = await this.Plan.findOne({
      name_key: key,
      _id: { $ne: id },
    }).lean<PlanDocument>();
    return holder && { outcome: 'name-taken', holder: planRecord(holder) };
  }

  async create({
    plan,
    id,
    now,
    beforeEachWrite = () => {},
  }: {
    plan: NewPlan;
    id?: number;
    now: Date;
    beforeEachWrite?: BeforeEachWrite;
  }): Promise<
    { outcome: 'created'; plan: PlanRecord } | { outcome: 'id-taken' } | PlanNameTakenOutcome
  > {
    const name_key = planNameKey(plan.name);
    const created = await this.sequences.insert(
      'plan',
      id,
      async (chosen): Promise<PlanRecord | PlanNameTakenOutcome> => {
        try {
          const doc = await this.Plan.create({
            _id: chosen,
            ...plan,
            trial_days: plan.trial_days ?? null,
            name_key,
            created_at: now,
          });
          return planRecord(doc.toObject());
        } catch (error) {
          // The name's index refused it, or the id's (the sequence then takes the next id).
          const taken = isDuplicateKey(error) ? await this.nameTaken(name_key, chosen) : null;
          if (taken) return taken;
          throw error;
        }
      },
      beforeEachWrite,
    );
    if (created.outcome !== 'created') return created;
    return 'outcome' in created.record
      ? created.record
      : { outcome: 'created', plan: created.record };
  }

  async find(id: number): Promise<PlanRecord | null> {
    const doc = await this.Plan.findById(id).lean<PlanDocument>();
    return doc && planRecord(doc);
  }

  async list(): Promise<PlanRecord[]> {
    return (await this.Plan.find().sort({ _id: 1 }).lean<PlanDocument[]>()).map(planRecord);
  }

  async update({
    id,
    changes,
  }: {
    id: number;
    changes: PlanChanges;
  }): Promise<{ outcome: 'updated'; plan: PlanRecord } | PlanNameTakenOutcome | null> {
    const name_key = changes.name === undefined ? undefined : planNameKey(changes.name);
    try {
      const doc = await this.Plan.findByIdAndUpdate(
        id,
        { $set: setOf({ ...changes, name_key }) },
        { returnDocument: 'after' },
      ).lean<PlanDocument>();
      return doc && { outcome: 'updated', plan: planRecord(doc) };
    } catch (error) {
      const taken =
        isDuplicateKey(error) && name_key !== undefined ? await this.nameTaken(name_key, id) : null;
      if (taken) return taken;
      throw error;
    }
  }
}
