import { planNameKey } from '../rules.js';

/** A plan renamed at start because an earlier plan has its name. */
export interface PlanRename {
  id: number;
  previousName: string;
  name: string;
  /** The plan, first stored, that keeps the name. */
  keptBy: number;
}

/**
 * Plans stored under one name before names were unique (docs/api-decisions.md, "Plan names"):
 * the first stored (lowest id) keeps the name, each later one is renamed `Name (2)`,
 * `Name (3)`, ..., the first number that gives a name no plan has (nor had before these renames).
 * The same plans give the same renames, so replicas starting at once agree.
 */
export function duplicatePlanRenames(
  plans: ReadonlyArray<{ id: number; name: string }>,
): PlanRename[] {
  const sorted = [...plans].sort((a, b) => a.id - b.id);
  const stored = new Set(sorted.map((plan) => planNameKey(plan.name)));
  const holders = new Map<string, number>();
  const renames: PlanRename[] = [];
  for (const plan of sorted) {
    const key = planNameKey(plan.name);
    const keptBy = holders.get(key);
    if (keptBy === undefined) {
      holders.set(key, plan.id);
      continue;
    }
    let n = 2;
    const base = plan.name.trim();
    while (
      stored.has(planNameKey(`${base} (${n})`)) ||
      holders.has(planNameKey(`${base} (${n})`))
    ) {
      n++;
    }
    const name = `${base} (${n})`;
    holders.set(planNameKey(name), plan.id);
    renames.push({ id: plan.id, previousName: plan.name, name, keptBy });
  }
  return renames;
}
