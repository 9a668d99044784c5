// The token picker: a modal dialog listing the assets with their chains, filtered as the user
// types (symbol, name or chain). Keyboard only: type to filter, ↓ and ↑ move through the list,
// Enter picks, Escape closes; focus goes back to the button that opened it.
import { chainBadge } from './badges.js';

const $ = (id) => document.getElementById(id);

function matches(a, q, chainName) {
  return !q || a.symbol.toLowerCase().includes(q) || a.name.toLowerCase().includes(q)
    || chainName(a.chain).toLowerCase().includes(q) || a.chain === q;
}

// openPicker shows the dialog for assets, marks current, and calls onPick with the asset
// chosen (not at all when the user closes it).
export function openPicker({ heading, assets, current, chainName, onPick }) {
  const dialog = $('picker');
  const search = $('picker-search');
  const list = $('picker-list');
  $('picker-h').textContent = heading;
  search.value = '';

  const render = () => {
    const q = search.value.trim().toLowerCase();
    const shown = assets.filter((a) => matches(a, q, chainName)).slice(0, 200);
    list.replaceChildren(...shown.map((a) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'token-row';
      b.dataset.asset = a.assetId;
      if (a.assetId === current) b.setAttribute('aria-current', 'true');
      const sym = document.createElement('strong');
      sym.textContent = a.symbol;
      const sub = document.createElement('span');
      sub.className = 'muted';
      sub.textContent = a.name && a.name !== a.symbol ? `${a.name} · ${chainName(a.chain)}` : chainName(a.chain);
      b.append(chainBadge(a.chain, 28), sym, sub);
      b.addEventListener('click', () => { dialog.close(); onPick(a); });
      const li = document.createElement('li');
      li.append(b);
      return li;
    }));
    $('picker-empty').hidden = shown.length > 0;
  };

  const rows = () => [...list.querySelectorAll('button')];
  const onKey = (ev) => {
    const all = rows();
    const at = all.indexOf(document.activeElement);
    if (ev.key === 'ArrowDown' && all.length) { ev.preventDefault(); all[Math.min(at + 1, all.length - 1)].focus(); }
    if (ev.key === 'ArrowUp' && all.length) { ev.preventDefault(); (at <= 0 ? search : all[at - 1]).focus(); }
    if (ev.key === 'Enter' && document.activeElement === search && all.length) { ev.preventDefault(); all[0].click(); }
    // One Escape closes, even from a search field with text (which would only clear it).
    if (ev.key === 'Escape') { ev.preventDefault(); dialog.close(); }
  };
  search.oninput = render;
  dialog.onkeydown = onKey;
  $('picker-close').onclick = () => dialog.close();
  render();
  dialog.showModal();
  search.focus();
}
