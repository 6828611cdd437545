import type request from 'supertest';
import { publicOpenApi } from '../../services/gateway/openapi.js';
import { operations, type Doc, type Method } from './openapi-documents.js';

/**
 * Which documented answers a test file saw, for the routes whose file checks them itself (the
 * updater feeds; test/integration/openapi.test.ts checks every other route). The answers are
 * checked against the document where they are made (`TestSystem.api()`); this keeps count, so a
 * documented success no test produces fails its file.
 */
export class DocumentedCalls {
  private readonly seen = new Set<string>();

  /** `doc`: the public API's document unless said. */
  constructor(private readonly doc: Doc = publicOpenApi as unknown as Doc) {}

  saw(method: Method, template: string, res: request.Response): request.Response {
    this.seen.add(`${method.toUpperCase()} ${template} -> ${res.status}`);
    return res;
  }

  /** The success statuses (and 304) documented for these operations that no call was seen with. */
  unseenSuccesses(operationIds: readonly string[]): string[] {
    return operations(this.doc)
      .filter(({ op }) => op.operationId !== undefined && operationIds.includes(op.operationId))
      .flatMap(({ path, method, op }) =>
        Object.keys(op.responses)
          .filter((status) => status.startsWith('2') || status === '304')
          .map((status) => `${method.toUpperCase()} ${path} -> ${status}`),
      )
      .filter((answer) => !this.seen.has(answer));
  }
}

/**
 * The admin operations of the stores, whose documented answers their test file counts
 * (test/integration/management-store-connections.test.ts).
 */
export const storeOperationIds = [
  'createStoreConnection',
  'listStoreConnections',
  'getStoreConnection',
  'updateStoreConnection',
  'deleteStoreConnection',
  'createStoreMapping',
  'listStoreMappings',
  'updateStoreMapping',
  'deleteStoreMapping',
  'listStoreEvents',
  'getStoreEvent',
  'applyStoreEventAgain',
] as const;

/** The operations whose documented answers the feed test files count (see DocumentedCalls). */
export const feedOperationIds = [
  'joomlaFeed',
  'joomlaKeyFeed',
  'joomlaChangelog',
  'electronFeed',
  'sparkleFeed',
  'tauriFeed',
  'wordpressFeed',
  'eddApiGet',
  'eddApiPost',
] as const;

/** The store event route: its file (test/integration/store-events.test.ts) counts its answers. */
export const storeEventOperationIds = ['receiveStoreEvent'] as const;
