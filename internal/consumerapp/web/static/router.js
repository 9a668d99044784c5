// The page's addresses: "/" is the swap card, "/order/{id}" one order. Moving between them
// uses the History API, so Back, Forward, reload and a shared link land where they should
// (the server answers /order/{id} with this same page).

// routeOf reads a path: {view: 'swap'} or {view: 'order', id}; anything else is the swap card.
export function routeOf(path) {
  const m = /^\/order\/([^/]+)$/.exec(path);
  return m ? { view: 'order', id: decodeURIComponent(m[1]) } : { view: 'swap' };
}

export const orderPath = (id) => `/order/${encodeURIComponent(id)}`;

// startRouter calls show(route) now, after every navigate and on Back/Forward. Same-origin
// links marked data-nav navigate without a reload.
export function startRouter(show) {
  const go = () => show(routeOf(location.pathname));
  addEventListener('popstate', go);
  document.addEventListener('click', (ev) => {
    const a = ev.target.closest('a[data-nav]');
    if (!a || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
    ev.preventDefault();
    navigate(a.getAttribute('href'));
  });
  go();
  return { navigate };

  function navigate(path) {
    if (path !== location.pathname) history.pushState(null, '', path);
    go();
  }
}
