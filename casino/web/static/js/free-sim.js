// Simulations: many all-computer games of the chosen variant and options, summed up with a
// histogram of their lengths.

import { h, replace, show } from "./dom.js";
import { reasonText } from "./free-game.js";
import { announce, BASE, el, state, titleOf } from "./free-state.js";
import { histogram } from "./histogram.js";
import { number, t, tn } from "./i18n.js";
import { saidError } from "./problems.js";

// A simulation too long to wait for comes back as a job (202): poll it until it is done.
const POLL_MS = 500;

export async function simulate(body) {
  replace(el.simResult, h("p", { class: "hint" }, tn("sim.playing", body.games)));
  show(el.simResult, true);
  const result = await finished(await state.client.post(`${BASE}/simulations`, body));
  state.simulation = result;
  renderSimulation();
  announce(
    t("sim.done", {
      games: tn("sim.games_count", result.games),
      median: number(result.battles.median),
      mean: number(result.battles.mean),
      longest: number(result.battles.max),
    }),
  );
}

async function finished(answer) {
  let job = answer;
  while (job.status === "running") {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    job = await state.client.get(`${BASE}/simulations/${job.id}`);
  }
  if (job.status === "failed") {
    throw saidError(t("sim.failed", { reason: job.error || t("sim.no_reason") }));
  }
  return job.status === "done" ? job.result : job;
}

export function renderSimulation() {
  const result = state.simulation;
  if (!result) return;
  const stat = (value, label) => h("div", { class: "stat" }, h("b", {}, number(value)), h("span", {}, label));
  const percent = (share) => number(share, { style: "percent", minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const seats = result.wins.map((wins, seat) => {
    const share = result.games ? wins / result.games : 0;
    const meter = h("span", {});
    meter.style.setProperty("width", `${(100 * share).toFixed(1)}%`);
    return h("div", { class: "win-row" },
      h("span", {}, t("sim.seat", { n: seat + 1 })),
      h("div", { class: "meter", "aria-hidden": "true" }, meter),
      h("span", { class: "pct" }, percent(share)));
  });
  const endings = Object.entries(result.endings)
    .map(([reason, count]) => `${reasonText(reason)}: ${number(count)}`)
    .join(" · ");
  replace(
    el.simResult,
    h("div", { class: "stats" },
      stat(result.games, t("sim.stat.games")),
      stat(result.battles.median, t("sim.stat.median")),
      stat(result.battles.mean, t("sim.stat.mean")),
      stat(result.battles.p95, t("sim.stat.p95")),
      stat(result.battles.max, t("sim.stat.longest")),
      stat(result.wars_per_game, t("sim.stat.wars"))),
    result.length_histogram?.length
      ? histogram(result.length_histogram, {
          median: result.battles.median,
          mean: result.battles.mean,
          title: t("sim.chart_title", { variant: titleOf(result.variant), games: tn("sim.games_count", result.games) }),
        })
      : null,
    h("h3", { class: "hand-label" }, t("sim.wins_title")),
    h("div", { class: "wins" }, seats),
    h("p", { class: "hint" },
      t("sim.summary", { draws: number(result.draws), cycles: number(result.cycles), endings })),
    result.complete
      ? null
      : h("p", { class: "hint" }, t("sim.stopped", {
          games: number(result.games),
          requested: number(result.games_requested),
          by: result.stopped_by,
        })),
  );
  show(el.simResult, true);
}
