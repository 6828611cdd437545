import { z } from 'zod';
import * as catalog from './catalog.js';
import { FeedAnswer, FeedRequest } from './feeds.js';
import * as download from './download.js';
import { CreatePlanRequest, Plan, PlanList, PlanRef, UpdatePlanRequest } from './plans.js';
import * as entitlements from './entitlements.js';
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
} from './license-operations.js';
import {
  ActivationPage,
  ExportLicensesRequest,
  LicenseBatch,
  LicenseDetail,
  LicensePage,
  LicenseRef,
  ListActivationsRequest,
  SearchLicensesRequest,
} from './license-views.js';
import {
  AddActivationRequest,
  AddedActivation,
  ChangePlanRequest,
  CreateLicenseRequest,
  RemoveActivationRequest,
  RenewLicenseRequest,
  UpdateLicenseRequest,
} from './license-changes.js';
import { RunTaskRequest, ScheduledTaskList, TaskRun } from './scheduled-tasks.js';
import { PortalLicense } from './portal-license.js';
import * as overview from './overview.js';
import * as trials from './trials.js';
import * as webhooks from './webhooks.js';
import { LicenseUsage, RecordUsageRequest, UsageResult } from './usage.js';

/** The services that answer RPC requests; each has one request queue (docs/architecture.md). */
export const serviceNames = ['license', 'update-catalog', 'download', 'webhooks'] as const;
export type ServiceName = (typeof serviceNames)[number];

const EmptyRequest = z.strictObject({});
const Health = z.object({
  service: z.string(),
  status: z.literal('ok'),
  uptime_seconds: z.number(),
});

function method<S extends ServiceName, Req extends z.ZodType, Res extends z.ZodType>(
  service: S,
  request: Req,
  response: Res,
) {
  return { service, request, response };
}

/**
 * Every RPC method: which service answers it, and the schemas of its request and response. The
 * gateway, the management API and the services all import this table, so they cannot drift.
 */
export const rpcMethods = {
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

  'update-catalog.health': method('update-catalog', EmptyRequest, Health),
  'update-catalog.createProduct': method(
    'update-catalog',
    catalog.CreateProductRequest,
    catalog.Product,
  ),
  'update-catalog.getProduct': method('update-catalog', catalog.ProductRef, catalog.Product),
  'update-catalog.updateProduct': method(
    'update-catalog',
    catalog.UpdateProductRequest,
    catalog.Product,
  ),
  'update-catalog.listProducts': method('update-catalog', EmptyRequest, catalog.ProductList),
  'update-catalog.createVersion': method(
    'update-catalog',
    catalog.CreateVersionRequest,
    catalog.Version,
  ),
  'update-catalog.getVersion': method('update-catalog', catalog.VersionRef, catalog.Version),
  'update-catalog.updateVersion': method(
    'update-catalog',
    catalog.UpdateVersionRequest,
    catalog.Version,
  ),
  'update-catalog.listVersions': method(
    'update-catalog',
    catalog.ProductVersionsRequest,
    catalog.VersionList,
  ),
  'update-catalog.addFile': method('update-catalog', catalog.AddFileRequest, catalog.PackageFile),
  'update-catalog.updateFile': method(
    'update-catalog',
    catalog.UpdateFileRequest,
    catalog.PackageFile,
  ),
  /** Forgets the file and answers with it, so the caller can remove its stored object. */
  'update-catalog.deleteFile': method('update-catalog', catalog.FileRef, catalog.PackageFile),
  'update-catalog.selectFile': method(
    'update-catalog',
    catalog.SelectFileRequest,
    catalog.SelectedFile,
  ),
  /** An updater's feed (docs/updaters.md), from the in-memory catalog. */
  'update-catalog.feed': method('update-catalog', FeedRequest, FeedAnswer),
  'update-catalog.checkUpdate': method(
    'update-catalog',
    catalog.CheckUpdateRequest,
    catalog.UpdateInfo,
  ),

  'download.health': method('download', EmptyRequest, Health),
  'download.authorize': method(
    'download',
    download.AuthorizeDownloadRequest,
    download.AuthorizedDownload,
  ),
  'download.prepareUpload': method(
    'download',
    download.PrepareUploadRequest,
    download.PreparedUpload,
  ),
  'download.deleteObject': method('download', download.DeleteObjectRequest, download.DeletedObject),
  /** The Sparkle EdDSA signature of a stored package, read back once after its upload. */
  'download.signPackage': method('download', download.SignPackageRequest, download.SignedPackage),
  'download.listLog': method('download', download.DownloadLogRequest, download.DownloadLogPage),
  /** The download log a batch at a time, for an export of any size. */
  'download.exportLog': method(
    'download',
    download.ExportDownloadLogRequest,
    download.DownloadLogBatch,
  ),
  /** Spec 4.5: a refusal the gateway answered itself (or after authorize), for the log. */
  'download.logRefusal': method('download', download.LogRefusalRequest, download.LoggedRefusal),
  /** The downloads served and refused per day (the admin overview). */
  'download.dailyCounts': method(
    'download',
    overview.DownloadDailyCountsRequest,
    overview.DownloadDailyCounts,
  ),

  'webhooks.health': method('webhooks', EmptyRequest, Health),
  'webhooks.createEndpoint': method(
    'webhooks',
    webhooks.CreateWebhookRequest,
    webhooks.WebhookEndpointWithSecret,
  ),
  'webhooks.listEndpoints': method('webhooks', EmptyRequest, webhooks.WebhookList),
  'webhooks.getEndpoint': method('webhooks', webhooks.WebhookRef, webhooks.WebhookEndpoint),
  'webhooks.updateEndpoint': method(
    'webhooks',
    webhooks.UpdateWebhookRequest,
    webhooks.WebhookEndpoint,
  ),
  'webhooks.deleteEndpoint': method('webhooks', webhooks.WebhookRef, webhooks.WebhookEndpoint),
  /** A new secret, answered once; the one before keeps signing beside it for 24 hours. */
  'webhooks.rotateSecret': method(
    'webhooks',
    webhooks.WebhookRef,
    webhooks.WebhookEndpointWithSecret,
  ),
  /** Queues a `webhook.test` event for the endpoint, tried at once. */
  'webhooks.sendTest': method('webhooks', webhooks.WebhookRef, webhooks.WebhookDelivery),
  'webhooks.listDeliveries': method(
    'webhooks',
    webhooks.ListWebhookDeliveriesRequest,
    webhooks.WebhookDeliveryPage,
  ),
  /** Tries a delivery again now, whatever its state; its id (the `webhook-id`) stays. */
  'webhooks.retryDelivery': method(
    'webhooks',
    webhooks.WebhookDeliveryRef,
    webhooks.WebhookDelivery,
  ),
} as const;

export type RpcMethods = typeof rpcMethods;
export type MethodName = keyof RpcMethods;
/** What a caller passes (defaults may be omitted). */
export type RequestOf<M extends MethodName> = z.input<RpcMethods[M]['request']>;
/** What a handler receives, after validation and defaults. */
export type ParsedRequestOf<M extends MethodName> = z.output<RpcMethods[M]['request']>;
export type ResponseOf<M extends MethodName> = z.output<RpcMethods[M]['response']>;
export type MethodsOf<S extends ServiceName> = {
  [M in MethodName]: RpcMethods[M]['service'] extends S ? M : never;
}[MethodName];

/**
 * What a handler knows of the call it answers. The caller stops waiting at `deadline` and then
 * reports INTERNAL_ERROR to its client, so work done after it must not take effect: a handler
 * calls `beforeWrite()` immediately before each database or storage write it makes, and that
 * throws INTERNAL_ERROR once the deadline has passed (docs/architecture.md).
 */
export interface CallContext {
  /** When the caller's timeout fires: absolute epoch milliseconds, on the caller's clock. */
  readonly deadline: number;
  /**
   * The call's id, the same in every delivery of its request (RabbitMQ delivers a request again
   * to another replica when the one handling it died): what a handler writes once per call is
   * keyed by it.
   */
  readonly callId: string;
  /** Whether the deadline has passed: the caller stopped waiting, so no write may be made. */
  readonly passed: boolean;
  /** Throws when the deadline has passed; called immediately before each write. */
  beforeWrite(): void;
}

/** Handlers a service registers: one per method it answers. */
export type HandlersOf<S extends ServiceName> = {
  [M in MethodsOf<S>]: (
    request: ParsedRequestOf<M>,
    context: CallContext,
  ) => Promise<ResponseOf<M>>;
};

/** Broadcast events: fire-and-forget notifications to every interested replica. */
export const rpcEvents = {
  'update-catalog.product-changed': catalog.ProductChangedEvent,
} as const;
export type EventName = keyof typeof rpcEvents;
export type EventOf<E extends EventName> = z.output<(typeof rpcEvents)[E]>;

export { Health };

/** What the management API's health check answers: every service answered, with its uptime. */
export const HealthReport = z.object({
  status: z.literal('ok'),
  services: z.partialRecord(
    z.enum(serviceNames),
    Health.pick({ status: true, uptime_seconds: true }),
  ),
});
export type HealthReport = z.infer<typeof HealthReport>;
