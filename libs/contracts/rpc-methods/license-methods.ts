import { CreatePlanRequest, Plan, PlanList, PlanRef, UpdatePlanRequest } from '../plans/plans.js';
import * as entitlements from '../plans/entitlements.js';
import {
  ActivateRequest,
  ActivationResult,
  Checkout,
  CheckoutRequest,
  DeactivateRequest,
  LicenseCoverage,
  LicenseCoverageRequest,
  ValidateRequest,
  ValidationResult,
} from '../licenses/license-operations.js';
import {
  ActivationPage,
  ExportLicensesRequest,
  LicenseBatch,
  LicenseDetail,
  LicensePage,
  LicenseRef,
  ListActivationsRequest,
  SearchLicensesRequest,
} from '../licenses/license-views.js';
import {
  AddActivationRequest,
  AddedActivation,
  ChangePlanRequest,
  CreateLicenseRequest,
  RemoveActivationRequest,
  RenewLicenseRequest,
  UpdateLicenseRequest,
} from '../licenses/license-changes.js';
import {
  CreateStoreLicenseRequest,
  FindStoreLicenseRequest,
  FoundStoreLicense,
  StoreLicense,
} from '../stores/license-store-refs.js';
import { RunTaskRequest, ScheduledTaskList, TaskRun } from '../licenses/scheduled-tasks.js';
import { PortalLicense } from '../licenses/portal-license.js';
import { ImportLicensesRequest, ImportLicensesResult } from '../licenses/license-imports.js';
import * as overview from '../management/overview.js';
import * as trials from '../licenses/trials.js';
import { LicenseUsage, RecordUsageRequest, UsageResult } from '../licenses/usage.js';
import { EmptyRequest, Health, method } from './method.js';

/** The license service's RPC methods (licenses, activations, plans, entitlements, trials, usage). */
export const licenseMethods = {
  'license.health': method('license', EmptyRequest, Health),
  'license.activate': method('license', ActivateRequest, ActivationResult),
  'license.validate': method('license', ValidateRequest, ValidationResult),
  'license.deactivate': method('license', DeactivateRequest, ActivationResult),
  /** A license file's content for an activated identifier; recorded on the activation. */
  'license.checkout': method('license', CheckoutRequest, Checkout),
  /** A use counted on a license's usage counter, once per idempotency key. */
  'license.recordUsage': method('license', RecordUsageRequest, UsageResult),
  /** A license's usage counter as the admin sees it, and an admin's reset of it. */
  'license.getUsage': method('license', LicenseRef, LicenseUsage),
  'license.resetUsage': method('license', LicenseRef, LicenseUsage),
  'license.createPlan': method('license', CreatePlanRequest, Plan),
  'license.getPlan': method('license', PlanRef, Plan),
  'license.listPlans': method('license', EmptyRequest, PlanList),
  'license.updatePlan': method('license', UpdatePlanRequest, Plan),
  'license.createEntitlement': method(
    'license',
    entitlements.CreateEntitlementRequest,
    entitlements.Entitlement,
  ),
  'license.getEntitlement': method(
    'license',
    entitlements.EntitlementRef,
    entitlements.Entitlement,
  ),
  'license.listEntitlements': method('license', EmptyRequest, entitlements.EntitlementList),
  'license.updateEntitlement': method(
    'license',
    entitlements.UpdateEntitlementRequest,
    entitlements.Entitlement,
  ),
  /** Refused (ENTITLEMENT_IN_USE) while a plan or a license grants it; answers the one deleted. */
  'license.deleteEntitlement': method(
    'license',
    entitlements.EntitlementRef,
    entitlements.Entitlement,
  ),
  /** A license's own entitlement, granted or its expiry replaced; answers the license. */
  'license.grantEntitlement': method(
    'license',
    entitlements.GrantEntitlementRequest,
    LicenseDetail,
  ),
  'license.revokeEntitlement': method(
    'license',
    entitlements.RevokeEntitlementRequest,
    LicenseDetail,
  ),
  'license.createLicense': method('license', CreateLicenseRequest, LicenseDetail),
  'license.getLicense': method('license', LicenseRef, LicenseDetail),
  /** A store sale's license, made once per sale however often and at once it is asked for. */
  'license.createStoreLicense': method('license', CreateStoreLicenseRequest, StoreLicense),
  /** A store sale's license, by its subscription id, then its order id; null when none. */
  'license.findStoreLicense': method('license', FindStoreLicenseRequest, FoundStoreLicense),
  /** Licenses moved from another system, their keys kept; written once however often sent. */
  'license.importLicenses': method('license', ImportLicensesRequest, ImportLicensesResult),
  'license.updateLicense': method('license', UpdateLicenseRequest, LicenseDetail),
  'license.addActivation': method('license', AddActivationRequest, AddedActivation),
  'license.listActivations': method('license', ListActivationsRequest, ActivationPage),
  'license.removeActivation': method('license', RemoveActivationRequest, LicenseDetail),
  'license.coverage': method('license', LicenseCoverageRequest, LicenseCoverage),
  'license.searchLicenses': method('license', SearchLicensesRequest, LicensePage),
  /** The license list a batch at a time, for an export of any size. */
  'license.exportLicenses': method('license', ExportLicensesRequest, LicenseBatch),
  'license.changePlan': method('license', ChangePlanRequest, LicenseDetail),
  'license.renewLicense': method('license', RenewLicenseRequest, LicenseDetail),
  /** Spec 1, 2.3: the customer portal's read-only view of a license. No side effect. */
  'license.portalLicense': method('license', LicenseRef, PortalLicense),
  /** Runs a scheduled task now, on the replica that takes the call, and answers its result. */
  'license.runTask': method('license', RunTaskRequest, TaskRun),
  'license.listTasks': method('license', EmptyRequest, ScheduledTaskList),
  /** The licenses in use now and the license service's daily counts (the admin overview). */
  'license.overview': method('license', overview.LicenseOverviewRequest, overview.LicenseOverview),
  /** A trial license with the identifier activated on it, once per identifier and product. */
  'license.startTrial': method('license', trials.StartTrialRequest, trials.StartedTrial),
  'license.listTrials': method('license', trials.ListTrialsRequest, trials.TrialPage),
} as const;
