import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { PackageFile } from '../../../libs/contracts/index.js';
import { ApiError, errorOf, readAnswer, send } from '../../../libs/web/ui/api.js';

/** Every call of the console goes to the management API of the page's own origin. */
const ADMIN_BASE = '/admin/v1';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** Query values: absent ones (null, undefined, empty text) are left out of the query string. */
export type Query = Record<string, string | number | boolean | null | undefined>;

export function withQuery(path: string, query: Query): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === null || value === undefined || value === '') continue;
    params.set(name, String(value));
  }
  const text = params.toString();
  return text === '' ? path : `${path}?${text}`;
}

/** A license key or identifier as one path segment. */
export const segment = (value: string) => encodeURIComponent(value);

/**
 * The management API with this tab's admin token, sent as `Authorization: Bearer` on every
 * call. A 401 means the token is no longer accepted: the console signs out.
 */
export class AdminApi {
  constructor(
    private readonly token: string,
    private readonly onUnauthorized: (error: ApiError) => void,
  ) {}

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

  async call<T>(method: Method, path: string, body?: unknown): Promise<T> {
    try {
      const response = await send(`${ADMIN_BASE}${path}`, {
        method,
        headers: this.headers(body !== undefined),
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: 'no-store',
        credentials: 'omit',
      });
      return await readAnswer<T>(response);
    } catch (error) {
      throw this.refused(error);
    }
  }

  get<T>(path: string, query: Query = {}): Promise<T> {
    return this.call<T>('GET', withQuery(path, query));
  }

  /**
   * A file the API streams (a CSV export), whole, with the name it gives it. The token travels
   * only as a header, so the file cannot be a link the browser follows: it is read here and
   * handed to the browser to save (`saveFile`). An export cut off half way fails.
   */
  async file(path: string, query: Query = {}): Promise<{ blob: Blob; filename: string }> {
    try {
      const response = await send(`${ADMIN_BASE}${withQuery(path, query)}`, {
        method: 'GET',
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
  upload(
    versionId: number,
    fields: { file: File; plan_id: number | null; include_in_updates: boolean },
    onProgress: (sent: number, total: number) => void,
  ): Promise<PackageFile> {
    const form = new FormData();
    if (fields.plan_id !== null) form.append('plan_id', String(fields.plan_id));
    form.append('include_in_updates', String(fields.include_in_updates));
    form.append('file', fields.file, fields.file.name);
    return new Promise<PackageFile>((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open('POST', `${ADMIN_BASE}/versions/${versionId}/files`);
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
          resolve((body as { data: PackageFile }).data);
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
