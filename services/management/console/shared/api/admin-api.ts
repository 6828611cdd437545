import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { ApiError, errorOf, readAnswer, send } from '../../../../../libs/web/ui/api.js';
import { readPageConfig } from '../../../../../libs/web/ui/page-config.js';
import type { ManagementApi } from '../../../api-contract.js';
import type { Endpoint, Endpoints } from '../../../console-config.js';
import { endpointsOf, pathOf, type FieldValue, type QueryValue } from './endpoints.js';

/**
 * The management API as the console calls it: by operation id, with the path parameters, query
 * and body the operation's route takes and the answer it gives, all typed from its schemas
 * (api-contract.ts `ManagementApi`), so no call names a path or states a type of its own.
 */
type OperationId = keyof ManagementApi;

type OperationsWhere<Kind> = {
  [Id in OperationId]: ManagementApi[Id] extends Kind ? Id : never;
}[OperationId];

/** Operations sent as JSON (or with no body) and answering JSON. */
export type JsonOperation = OperationsWhere<{ sends: 'json'; answers: 'json' }>;
/** Operations answering a CSV file (the exports). */
export type CsvOperation = OperationsWhere<{ answers: 'csv' }>;
/** Operations taking a multipart form with a file (the package upload). */
export type UploadOperation = OperationsWhere<{ sends: 'multipart' }>;

/** The `data` an operation answers. */
export type Answer<Id extends OperationId> = ManagementApi[Id]['data'];

/** Fields where an optional one may also be null: absent, as undefined or empty text are. */
type Absent<Fields> = {
  [Name in keyof Fields]: Fields[Name] | (undefined extends Fields[Name] ? null : never);
};

/** Whether an operation takes none of these fields (its route declares no schema for them). */
type TakesNone<Fields> = string extends keyof Fields
  ? true
  : [keyof Fields] extends [never]
    ? true
    : false;

type Params<Id extends OperationId> = ManagementApi[Id]['params'];
/** An operation's query as a call gives it. */
export type Query<Id extends OperationId> = Absent<ManagementApi[Id]['query']>;
/** An operation's body as a call gives it. */
export type Body<Id extends OperationId> = ManagementApi[Id]['body'];

/** What a call gives: path parameters, query and body, each only where the operation takes it. */
export type CallRequest<Id extends OperationId> = (TakesNone<Params<Id>> extends true
  ? unknown
  : { params: Params<Id> }) &
  (TakesNone<Query<Id>> extends true
    ? unknown
    : object extends Query<Id>
      ? { query?: Query<Id> }
      : { query: Query<Id> }) &
  (undefined extends Body<Id> ? { body?: Body<Id> } : { body: Body<Id> });

/** The request of a call, left out when nothing of it is required. */
type CallArgs<Id extends OperationId> =
  object extends CallRequest<Id> ? [request?: CallRequest<Id>] : [request: CallRequest<Id>];

/** An upload: the operation's path parameters, its form's fields, and the file. */
export type Upload<Id extends UploadOperation> = {
  params: Params<Id>;
  fields: Absent<Omit<Body<Id>, 'file'>>;
  file: File;
};

/** Any request, as the calls read it. */
interface AnyRequest {
  params?: Readonly<Record<string, FieldValue | undefined>>;
  query?: Readonly<Record<string, QueryValue>>;
  body?: unknown;
}

/**
 * The management API with this tab's admin token, sent as `Authorization: Bearer` on every
 * call, at the endpoints the page was served with. A 401 means the token is no longer
 * accepted: the console signs out.
 */
export class AdminApi {
  private readonly endpoints: Endpoints = endpointsOf(readPageConfig());

  constructor(
    private readonly token: string,
    private readonly onUnauthorized: (error: ApiError) => void,
  ) {}

  private endpoint(operationId: OperationId): Endpoint {
    const endpoint = this.endpoints[operationId];
    if (endpoint === undefined) {
      throw new Error(`This page does not know where to send ${operationId}: reload it.`);
    }
    return endpoint;
  }

  private headers(json: boolean): Record<string, string> {
    return {
      Authorization: `Bearer ${this.token}`,
      Accept: 'application/json',
      ...(json ? { 'Content-Type': 'application/json' } : {}),
    };
  }

  private refused(error: unknown): unknown {
    if (error instanceof ApiError && error.status === 401) this.onUnauthorized(error);
    return error;
  }

  /**
   * An operation's answer (its `data`), of the type its route's schema gives: the server answers
   * with that schema (the tests check its answers against its OpenAPI document), so it is taken
   * as it comes.
   */
  call<Id extends JsonOperation>(operationId: Id, ...request: CallArgs<Id>): Promise<Answer<Id>>;
  async call(operationId: JsonOperation, { params = {}, query = {}, body }: AnyRequest = {}) {
    try {
      const endpoint = this.endpoint(operationId);
      const response = await send(pathOf(endpoint, params, query), {
        method: endpoint.method.toUpperCase(),
        headers: this.headers(body !== undefined),
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: 'no-store',
        credentials: 'omit',
      });
      return await readAnswer<unknown>(response);
    } catch (error) {
      throw this.refused(error);
    }
  }

  /**
   * A file the API streams (a CSV export), whole, with the name it gives it. The token travels
   * only as a header, so the file cannot be a link the browser follows: it is read here and
   * handed to the browser to save (`saveFile`). An export cut off half way fails.
   */
  file<Id extends CsvOperation>(
    operationId: Id,
    ...request: CallArgs<Id>
  ): Promise<{ blob: Blob; filename: string }>;
  async file(operationId: CsvOperation, { params = {}, query = {} }: AnyRequest = {}) {
    try {
      const endpoint = this.endpoint(operationId);
      const response = await send(pathOf(endpoint, params, query), {
        method: endpoint.method.toUpperCase(),
        headers: { Authorization: `Bearer ${this.token}`, Accept: 'text/csv, application/json' },
        cache: 'no-store',
        credentials: 'omit',
      });
      if (!response.ok) await readAnswer(response);
      const named = /filename="([^"]+)"/.exec(response.headers.get('Content-Disposition') ?? '');
      let blob: Blob;
      try {
        blob = await response.blob();
      } catch {
        throw new ApiError(0, 'CONNECTION', 'The file was cut off before its end; try again.');
      }
      return { blob, filename: named?.[1] ?? 'export.csv' };
    } catch (error) {
      throw this.refused(error);
    }
  }

  /**
   * A package upload (multipart, `file` last so the fields arrive first). XMLHttpRequest rather
   * than fetch: only it reports the upload's progress.
   */
  upload<Id extends UploadOperation>(
    operationId: Id,
    upload: Upload<Id>,
    onProgress: (sent: number, total: number) => void,
  ): Promise<Answer<Id>>;
  upload(
    operationId: UploadOperation,
    upload: {
      params: Readonly<Record<string, FieldValue>>;
      fields: Readonly<Record<string, QueryValue>>;
      file: File;
    },
    onProgress: (sent: number, total: number) => void,
  ): Promise<unknown> {
    const form = new FormData();
    for (const [name, value] of Object.entries(upload.fields)) {
      if (value !== null && value !== undefined) form.append(name, String(value));
    }
    form.append('file', upload.file, upload.file.name);
    return new Promise<unknown>((resolve, reject) => {
      const endpoint = this.endpoint(operationId);
      const xhr = new XMLHttpRequest();
      xhr.open(endpoint.method.toUpperCase(), pathOf(endpoint, upload.params, {}));
      xhr.setRequestHeader('Authorization', `Bearer ${this.token}`);
      xhr.setRequestHeader('Accept', 'application/json');
      xhr.responseType = 'text';
      xhr.upload.onprogress = (event) => {
        if (event.lengthComputable) onProgress(event.loaded, event.total);
      };
      xhr.onload = () => {
        let body: unknown;
        try {
          body = JSON.parse(xhr.responseText);
        } catch {
          reject(new ApiError(xhr.status, 'INTERNAL_ERROR', 'The answer could not be read.'));
          return;
        }
        if (xhr.status >= 200 && xhr.status < 300) {
          resolve((body as { data: unknown }).data);
        } else {
          reject(this.refused(errorOf(xhr.status, body)));
        }
      };
      xhr.onerror = () =>
        reject(new ApiError(0, 'CONNECTION', 'The upload could not reach the server.'));
      xhr.onabort = () => reject(new ApiError(0, 'CONNECTION', 'The upload was cancelled.'));
      xhr.send(form);
    });
  }
}

export const ApiContext = createContext<AdminApi | null>(null);

export function useApi(): AdminApi {
  const api = useContext(ApiContext);
  if (api === null) throw new Error('The console is not signed in.');
  return api;
}
