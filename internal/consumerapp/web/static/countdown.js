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
