// The page's only way out: same-origin calls to its backend under /api/.

let csrfToken = '';

// ApiError carries the backend's problem: {error, message, action, field?}.
export class ApiError extends Error {
  constructor(problem, status, retryAfter) {
    super(problem.message);
    this.problem = problem;
    this.status = status;
    this.retryAfter = retryAfter;
  }
}

async function request(method, path, body) {
  const init = { method, credentials: 'same-origin', headers: {} };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.headers['X-CSRF-Token'] = csrfToken;
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch {
    throw new ApiError({ error: 'offline', message: 'The swap app cannot be reached.', action: 'Check your connection and try again.' }, 0);
  }
  const data = await res.json().catch(() => null);
  if (!res.ok) {
    const problem = data && data.message ? data
      : { error: 'unexpected', message: 'Something went wrong.', action: 'Reload the page and try again.' };
    throw new ApiError(problem, res.status, res.headers.get('Retry-After'));
  }
  return data;
}

export async function startSession() {
  const s = await request('GET', '/api/session');
  csrfToken = s.csrfToken;
  return s;
}

export const get = (path) => request('GET', path);
export const post = (path, body) => request('POST', path, body ?? {});
