// A histogram of game lengths as inline SVG: bars, axes with round ticks, median and mean.

import { h } from "./dom.js";
import { number, t, tn } from "./i18n.js";

const W = 860;
const H = 300;
const M = { top: 40, right: 16, bottom: 42, left: 48 };

function niceStep(raw) {
  const power = 10 ** Math.floor(Math.log10(Math.max(raw, 1e-9)));
  for (const step of [1, 2, 5, 10]) if (step * power >= raw) return step * power;
  return 10 * power;
}

// Round ticks from 0 to the first one at or above max.
function ticks(max, count) {
  const step = Math.max(1, niceStep(max / count));
  const out = [0];
  while (out[out.length - 1] < max) out.push(out[out.length - 1] + step);
  return out;
}

// bins: [{low, high, games}] (one width, contiguous); stats: {median, mean}
export function histogram(bins, { median, mean, title } = {}) {
  const plotW = W - M.left - M.right;
  const plotH = H - M.top - M.bottom;
  const low = bins[0].low;
  const high = bins[bins.length - 1].high + 1;
  const x = (battles) => M.left + ((battles - low) / (high - low)) * plotW;
  const yTicks = ticks(Math.max(...bins.map((b) => b.games), 1), 5);
  const top = yTicks[yTicks.length - 1] || 1;
  const y = (games) => M.top + plotH - (games / top) * plotH;
  const total = bins.reduce((sum, b) => sum + b.games, 0);
  const mode = bins.reduce((best, b) => (b.games > best.games ? b : best), bins[0]);

  const svg = h("svg:svg", {
    class: "chart",
    viewBox: `0 0 ${W} ${H}`,
    role: "img",
    "aria-labelledby": "chart-title chart-desc",
  });
  svg.append(
    h("svg:title", { id: "chart-title" }, title),
    h(
      "svg:desc",
      { id: "chart-desc" },
      t("chart.description", {
        games: tn("chart.games", total),
        low: number(bins[0].low),
        high: number(bins[bins.length - 1].high),
        from: number(mode.low),
        to: number(mode.high),
        mode: tn("chart.games", mode.games),
        median: number(median),
        mean: number(mean),
      }),
    ),
    h(
      "svg:defs",
      {},
      h(
        "svg:linearGradient",
        { id: "bar-fill", x1: "0", y1: "0", x2: "0", y2: "1" },
        h("svg:stop", { offset: "0", "stop-color": "#f7da86" }),
        h("svg:stop", { offset: "1", "stop-color": "#c9922a" }),
      ),
    ),
  );
  for (const value of yTicks) {
    svg.append(
      h("svg:line", { class: "grid", x1: M.left, x2: W - M.right, y1: y(value), y2: y(value) }),
      h("svg:text", { x: M.left - 8, y: y(value) + 4, "text-anchor": "end" }, number(value)),
    );
  }
  const barW = plotW / bins.length;
  for (const [i, bin] of bins.entries()) {
    if (!bin.games) continue;
    const bar = h("svg:rect", {
      class: "bar",
      x: (M.left + i * barW + Math.min(1, barW * 0.1)).toFixed(2),
      y: y(bin.games).toFixed(2),
      width: Math.max(1, barW - Math.min(2, barW * 0.2)).toFixed(2),
      height: (M.top + plotH - y(bin.games)).toFixed(2),
      rx: Math.min(3, barW / 4).toFixed(2),
    });
    const range = bin.low === bin.high ? number(bin.low) : `${number(bin.low)}–${number(bin.high)}`;
    bar.append(h("svg:title", {}, t("chart.bar", { range, games: tn("chart.games", bin.games) })));
    svg.append(bar);
  }
  const xStep = Math.max(1, niceStep((high - low) / 6));
  for (let value = Math.ceil(low / xStep) * xStep; value <= high; value += xStep) {
    svg.append(
      h("svg:line", { class: "axis", x1: x(value), x2: x(value), y1: M.top + plotH, y2: M.top + plotH + 5 }),
      h("svg:text", { x: x(value), y: M.top + plotH + 18, "text-anchor": "middle" }, number(value)),
    );
  }
  svg.append(
    h("svg:line", { class: "axis", x1: M.left, x2: W - M.right, y1: M.top + plotH, y2: M.top + plotH }),
    h("svg:text", { x: M.left + plotW / 2, y: H - 6, "text-anchor": "middle" }, t("chart.x_axis")),
    h("svg:text", { x: M.left - 8, y: M.top - 26, "text-anchor": "end" }, t("chart.y_axis")),
  );
  const markers = [
    ["median", median, t("chart.median", { value: number(median, { maximumFractionDigits: 1 }) })],
    ["mean", mean, t("chart.mean", { value: number(mean, { maximumFractionDigits: 1 }) })],
  ];
  // Labels go on opposite sides of their lines, so close values do not overlap.
  for (const [name, value, label] of markers) {
    if (typeof value !== "number" || value < low || value > high) continue;
    const left = name === "median" ? median <= mean : mean < median;
    svg.append(
      h("svg:line", { class: `marker ${name}`, x1: x(value), x2: x(value), y1: M.top - 18, y2: M.top + plotH }),
      h(
        "svg:text",
        {
          class: `marker-label ${name}`,
          x: x(value) + (left ? -5 : 5),
          y: M.top - 22,
          "text-anchor": left ? "end" : "start",
        },
        label,
      ),
    );
  }
  return svg;
}
