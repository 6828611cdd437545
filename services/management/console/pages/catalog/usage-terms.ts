/**
 * A plan's usage settings as the plan form holds them, as typed, and what the form sends of them
 * (docs/api-decisions.md, "Usage counters").
 */
import type { Plan, UsesReset } from '../../../../../libs/contracts/index.js';
import { MAX_USES_LIMIT } from '../../../../../libs/contracts/bounds.js';

export interface PlanUsageDraft {
  /** Uses per period; empty when the plan counts no usage. */
  maxUses: string;
  usesReset: UsesReset;
}

export type PlanUsage = Pick<Plan, 'max_uses' | 'uses_reset'>;

export const NEW_PLAN_USAGE: PlanUsageDraft = { maxUses: '', usesReset: 'never' };

export const USES_RESET_WORDS: Record<UsesReset, string> = {
  never: 'Never',
  daily: 'Daily (midnight UTC)',
  monthly: 'Monthly (the 1st, midnight UTC)',
};

export const USAGE_HINT =
  'Uses a license may record per period through POST /licenses/usage; empty counts no usage. ' +
  'Changes apply to every license of the plan at once.';

export function usageDraftOf(plan: PlanUsage): PlanUsageDraft {
  return {
    maxUses: plan.max_uses === null ? '' : String(plan.max_uses),
    usesReset: plan.uses_reset,
  };
}

export const isMaxUses = (text: string) =>
  text.trim() === '' ||
  (/^\d+$/.test(text.trim()) && Number(text) >= 1 && Number(text) <= MAX_USES_LIMIT);

export function usageBody(draft: PlanUsageDraft): PlanUsage {
  return {
    max_uses: draft.maxUses.trim() === '' ? null : Number(draft.maxUses),
    uses_reset: draft.usesReset,
  };
}

/** The plans table's words for a plan's usage settings. */
export function usageWords(plan: PlanUsage): string {
  if (plan.max_uses === null) return 'not counted';
  const per = { never: 'in all', daily: 'a day', monthly: 'a month' }[plan.uses_reset];
  return `${plan.max_uses.toLocaleString('en')} ${per}`;
}
