// Chain badges drawn in the page (no images from other origins): a coloured disc with the
// chain's initials. Colours are fixed per chain where people know them, else derived from
// the chain key, and all are dark enough for white text (contrast ≥ 4.5:1).

const COLOURS = {
  eth: '#4a5a9c', arb: '#1f5f9e', base: '#0b4fd6', op: '#c4001a', pol: '#6b3fc4', avax: '#b8262b',
  bsc: '#8a6500', sol: '#6a2fc0', tron: '#b3121f', near: '#1d1d1d', btc: '#a85100', doge: '#7d6a15',
};

const SVG = 'http://www.w3.org/2000/svg';

function colour(chain) {
  if (COLOURS[chain]) return COLOURS[chain];
  let h = 0;
  for (const c of chain) h = (h * 31 + c.charCodeAt(0)) % 360;
  return `hsl(${h} 60% 32%)`;
}

// chainBadge returns an <svg> disc for chain (a short key like "sol"), hidden from assistive
// technology: the chain's name is always written beside it.
export function chainBadge(chain, size = 20) {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 20 20');
  svg.setAttribute('width', size);
  svg.setAttribute('height', size);
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('class', 'badge-chain');
  const disc = document.createElementNS(SVG, 'circle');
  disc.setAttribute('cx', '10');
  disc.setAttribute('cy', '10');
  disc.setAttribute('r', '10');
  disc.setAttribute('fill', colour(chain));
  const text = document.createElementNS(SVG, 'text');
  text.setAttribute('x', '10');
  text.setAttribute('y', '13.5');
  text.setAttribute('text-anchor', 'middle');
  text.setAttribute('font-size', chain.length > 2 ? '7.5' : '9');
  text.setAttribute('font-weight', '700');
  text.setAttribute('fill', '#fff');
  text.textContent = chain.slice(0, 3).toUpperCase();
  svg.append(disc, text);
  return svg;
}
