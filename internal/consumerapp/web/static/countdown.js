// How long the quotes on screen hold. A candidate's expiresAt is the provider's promise;
// dry quotes often carry none, and then the page re-quotes on its own schedule so a price
// never sits on screen long after the market moved.

export const REFRESH_MS = 30000;

// quoteDeadline returns {at, promised}: the earliest expiresAt among the candidates
// (promised: true), else fetchedAt + REFRESH_MS (promised: false).
export function quoteDeadline(candidates, fetchedAt) {
  const expiries = candidates.map((c) => Date.parse(c.expiresAt)).filter((t) => !Number.isNaN(t));
  if (expiries.length) return { at: Math.min(...expiries), promised: true };
  return { at: fetchedAt + REFRESH_MS, promised: false };
}

// countdownText is the line under the routes at time now; '' once the deadline has passed
// (the page is fetching fresh quotes then).
export function countdownText(deadline, now) {
  const left = Math.max(0, Math.ceil((deadline.at - now) / 1000));
  if (left === 0) return '';
  const clock = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}`;
  return deadline.promised ? `Quotes valid for ${clock}` : `Quotes refresh in ${clock}`;
}

// timeLeftText is the deposit window's remaining time at now, "59:12" (or "1:02:03"); ''
// once it has closed.
export function timeLeftText(deadline, now) {
  const left = Math.max(0, Math.floor((Date.parse(deadline) - now) / 1000));
  if (!left) return '';
  const h = Math.floor(left / 3600);
  const m = Math.floor((left % 3600) / 60);
  const s = String(left % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}
