// The operators' report page: asks /api/v1/reports/tables with the operator's token and
// draws the figures, with a funnel chart of observed RTP against rounds played per table.
// Every text from the data is set with textContent, never parsed as markup.
(function () {
  "use strict";

  var API = "/api/v1/reports/tables";
  var TOKEN_KEY = "casino.reports.token";
  var SVG_NS = "http://www.w3.org/2000/svg";
  var Z95 = 1.959963984540054;
  var Z998 = 3.090232306167813;
  var SLICES = [
    ["all_bets", "All bets"],
    ["ante_game", "Ante game"],
    ["tie_bet", "Tie bet"],
    ["war_tie_bet", "War tie bet"],
  ];
  // Slices counted per round that placed them (the others are every round).
  var COUNTED = { tie_bet: true, war_tie_bet: true };
  var lastReport = null;

  function $(id) {
    return document.getElementById(id);
  }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    setAttrs(node, attrs);
    append(node, children);
    return node;
  }

  function svg(tag, attrs, children) {
    var node = document.createElementNS(SVG_NS, tag);
    setAttrs(node, attrs);
    append(node, children);
    return node;
  }

  function setAttrs(node, attrs) {
    Object.keys(attrs || {}).forEach(function (key) {
      var value = attrs[key];
      if (value === null || value === undefined || value === false) return;
      if (key === "text") node.textContent = String(value);
      else node.setAttribute(key, String(value));
    });
  }

  function append(node, children) {
    (children || []).forEach(function (child) {
      if (child === null || child === undefined) return;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
  }

  // ---------------------------------------------------------------- formatting

  var moneyFormats = {};

  function money(minor, currency) {
    if (minor === null || minor === undefined) return "–";
    var format = moneyFormats[currency];
    if (format === undefined) {
      try {
        var nf = new Intl.NumberFormat(undefined, { style: "currency", currency: currency });
        format = { nf: nf, digits: nf.resolvedOptions().maximumFractionDigits };
      } catch (err) {
        format = null;
      }
      moneyFormats[currency] = format;
    }
    if (!format) return minor.toLocaleString() + " " + currency;
    return format.nf.format(minor / Math.pow(10, format.digits));
  }

  function pct(value, digits) {
    if (value === null || value === undefined) return "–";
    return (value * 100).toFixed(digits === undefined ? 2 : digits) + " %";
  }

  function signed(value) {
    if (value === null || value === undefined) return "–";
    return (value >= 0 ? "+" : "−") + Math.abs(value).toFixed(2);
  }

  function count(value) {
    return Number(value).toLocaleString();
  }

  function band(figures) {
    if (figures.band_low === null) return "–";
    return pct(figures.band_low) + " … " + pct(figures.band_high);
  }

  // "95.31 % ± 3.06": the theoretical RTP and the half-width of its 95 % band, in points.
  function theoBand(figures) {
    if (figures.theoretical_rtp === null) return "–";
    var half = (figures.band_high - figures.band_low) / 2;
    return pct(figures.theoretical_rtp) + " ± " + (half * 100).toFixed(2);
  }

  // ---------------------------------------------------------------- query

  function isoDay(date) {
    return date.toISOString().slice(0, 10);
  }

  function takeFragment() {
    // #token=...&since=...: the fragment never reaches a server; drop it from the address bar.
    var params = new URLSearchParams(location.hash.slice(1));
    var token = params.get("token");
    if (token) sessionStorage.setItem(TOKEN_KEY, token);
    ["since", "until", "currency", "slice"].forEach(function (name) {
      if (params.get(name)) $(name).value = params.get(name);
    });
    if (location.hash) history.replaceState(null, "", location.pathname + location.search);
    return Boolean(token);
  }

  function setStatus(text, isError) {
    var status = $("status");
    status.textContent = text;
    status.className = isError ? "status error" : "status";
  }

  function load(event) {
    if (event) event.preventDefault();
    var token = $("token").value.trim();
    if (!token) {
      setStatus("An operator token is needed.", true);
      return;
    }
    sessionStorage.setItem(TOKEN_KEY, token);
    var query = new URLSearchParams();
    if ($("since").value) query.set("since", $("since").value);
    if ($("until").value) query.set("until", $("until").value);
    var currency = $("currency").value.trim().toUpperCase();
    if (currency) query.set("currency", currency);
    setStatus("Loading…", false);
    fetch(API + "?" + query.toString(), {
      headers: { Authorization: "Bearer " + token, Accept: "application/json" },
      cache: "no-store",
      credentials: "omit",
    })
      .then(function (reply) {
        return reply
          .json()
          .catch(function () {
            return null;
          })
          .then(function (body) {
            if (!reply.ok) {
              var detail = body && body.detail ? body.detail : reply.statusText;
              var code = body && body.code ? " (" + body.code + ")" : "";
              if (reply.status === 401 || reply.status === 403) {
                sessionStorage.removeItem(TOKEN_KEY);
              }
              throw new Error(reply.status + ": " + detail + code);
            }
            return body;
          });
      })
      .then(function (report) {
        lastReport = report;
        render(report);
        var generated = new Date(report.generated_at);
        setStatus(
          report.tables.length +
            " table(s) · generated " +
            generated.toISOString().replace("T", " ").slice(0, 19) +
            " UTC",
          false
        );
      })
      .catch(function (err) {
        setStatus("The report could not be loaded: " + err.message, true);
      });
  }

  // ---------------------------------------------------------------- rendering

  function render(report) {
    var summary = $("summary");
    var tables = $("tables");
    summary.replaceChildren();
    tables.replaceChildren();
    if (!report.tables.length) {
      summary.hidden = true;
      tables.appendChild(el("p", { class: "card empty", text: "No rounds settled in this period." }));
      return;
    }
    summary.hidden = false;
    renderSummary(summary, report);
    report.tables.forEach(function (table) {
      tables.appendChild(tableCard(table));
    });
  }

  function kpi(label, value, sub, extraClass) {
    return el("div", { class: "kpi" + (extraClass ? " " + extraClass : "") }, [
      el("div", { class: "label", text: label }),
      el("div", { class: "value", text: value }),
      sub ? el("div", { class: "sub", text: sub }) : null,
    ]);
  }

  function renderSummary(summary, report) {
    var rounds = 0;
    var flagged = 0;
    var byCurrency = {};
    report.tables.forEach(function (table) {
      var all = table.total.all_bets;
      rounds += table.total.rounds;
      if (table.flagged) flagged += 1;
      var sums = byCurrency[table.currency] || { handle: 0, ggr: 0 };
      sums.handle += all.handle;
      sums.ggr += all.ggr;
      byCurrency[table.currency] = sums;
    });
    summary.appendChild(kpi("Tables", count(report.tables.length), flagged + " flagged", "card"));
    summary.appendChild(kpi("Rounds settled", count(rounds), periodText(report), "card"));
    Object.keys(byCurrency)
      .sort()
      .forEach(function (currency) {
        var sums = byCurrency[currency];
        summary.appendChild(
          kpi("Handle · " + currency, money(sums.handle, currency), null, "card")
        );
        summary.appendChild(
          kpi(
            "GGR · " + currency,
            money(sums.ggr, currency),
            "hold " + pct(sums.handle ? sums.ggr / sums.handle : null),
            "card"
          )
        );
      });
  }

  function periodText(report) {
    var from = report.since ? report.since.slice(0, 16).replace("T", " ") : "the start";
    var to = report.until ? report.until.slice(0, 16).replace("T", " ") : "now";
    return from + " → " + to;
  }

  function rulesText(rules) {
    return (
      rules.decks +
      (rules.decks > 1 ? " decks" : " deck") +
      " · tie " +
      rules.tie_pays +
      ":1" +
      (rules.war_tie_bonus ? " · tie bonus" : "") +
      (rules.war_ties === "repeat" ? " · wars repeat up to " + rules.max_war_ties + " ties" : "") +
      (rules.tie_ladder ? " · tie ladder " + rules.tie_ladder.join("/") + ":1" : "") +
      (rules.war_tie_pays ? " · war tie bet " + rules.war_tie_pays + ":1" : "")
    );
  }

  function tableCard(table) {
    var total = table.total;
    var all = total.all_bets;
    var head = el("div", { class: "table-head" }, [
      el("h2", { text: table.table_id }),
      el("span", { class: "chip currency", text: table.currency }),
    ]);
    table.rules.forEach(function (rules) {
      head.appendChild(
        el("span", {
          class: "chip",
          text: rulesText(rules) + " · always-war RTP " + pct(rules.rtp.war.value, 3),
        })
      );
    });
    if (table.open_rounds) {
      head.appendChild(el("span", { class: "chip", text: table.open_rounds + " open" }));
    }
    head.appendChild(
      el("span", {
        class: "badge " + (table.flagged ? "bad" : "ok"),
        text: table.flagged ? "Outside the band" : "Within the band",
      })
    );
    var rtpClass = all.outside_band ? "flag" : "";
    var kpis = el("div", { class: "kpis" }, [
      kpi("Rounds", count(total.rounds), null),
      kpi("Handle", money(all.handle, table.currency), null),
      kpi("Wins paid", money(all.wins, table.currency), null),
      kpi("GGR", money(all.ggr, table.currency), "hold " + pct(all.hold)),
      kpi("Observed RTP", pct(all.observed_rtp), "z " + signed(all.z_score), rtpClass),
      kpi("Theoretical RTP", pct(all.theoretical_rtp, 3), "95 % " + band(all)),
    ]);
    var body = el("div", { class: "table-body" }, [
      el("div", { class: "chart" }, [
        el("h3", { text: "RTP against rounds played · " + sliceName($("slice").value) }),
        funnel(table, $("slice").value),
      ]),
      el("div", { class: "slices" }, [el("h3", { text: "Period by bet" }), slicesTable(table)]),
    ]);
    return el("article", { class: "card table-card" }, [head, kpis, body, daysTable(table)]);
  }

  function sliceName(key) {
    for (var i = 0; i < SLICES.length; i++) if (SLICES[i][0] === key) return SLICES[i][1];
    return key;
  }

  function row(cells, className) {
    return el(
      "tr",
      { class: className || null },
      cells.map(function (cell) {
        if (cell && typeof cell === "object") return el("td", cell);
        return el("td", { text: cell });
      })
    );
  }

  function headRow(names) {
    return el(
      "thead",
      {},
      [el("tr", {}, names.map(function (name) {
        return el("th", { text: name });
      }))]
    );
  }

  function slicesTable(table) {
    var total = table.total;
    // A table without war tie bets has no line for them.
    var shown = SLICES.filter(function (slice) {
      return slice[0] !== "war_tie_bet" || (total.war_tie_bet && total.war_tie_bet.handle);
    });
    var rows = shown.map(function (slice) {
      var f = total[slice[0]];
      var label = COUNTED[slice[0]] ? slice[1] + " (" + count(f.rounds) + ")" : slice[1];
      return row(
        [
          label,
          money(f.handle, table.currency),
          { text: money(f.ggr, table.currency), class: f.ggr < 0 ? "neg" : null },
          { text: pct(f.observed_rtp), class: f.outside_band ? "flag" : null },
          theoBand(f),
          { text: signed(f.z_score) + (f.outside_band ? " ⚑" : ""), class: f.outside_band ? "flag" : null },
        ],
        f.outside_band ? "out" : null
      );
    });
    var tableNode = el("table", { class: "grid-table" }, [
      headRow(["Bet", "Handle", "GGR", "RTP", "Theoretical ± 95 %", "z"]),
      el("tbody", {}, rows),
    ]);
    var d = total.decisions;
    var decisions = el("div", { class: "decisions" });
    if (d.ties) {
      decisions.appendChild(
        document.createTextNode(
          count(d.ties) +
            " ties: war " +
            count(d.war) +
            " (" +
            pct(d.war_share, 1) +
            "), surrender " +
            count(d.surrender) +
            " (" +
            pct(d.surrender_share, 1) +
            ")"
        )
      );
      var bar = el("div", { class: "share-bar", title: "war / surrender" }, [
        el("span", { class: "war" }),
        el("span", { class: "surrender" }),
      ]);
      bar.children[0].style.width = d.war_share * 100 + "%";
      bar.children[1].style.width = d.surrender_share * 100 + "%";
      decisions.appendChild(bar);
    } else {
      decisions.textContent = "No ties in this period.";
    }
    return el("div", {}, [tableNode, decisions]);
  }

  function daysTable(table) {
    var names = [
      "Day", "Rounds", "Handle", "Wins", "GGR", "Hold", "RTP", "Theoretical ± 95 %", "z",
      "Ante game RTP", "Tie bet RTP", "War", "",
    ];
    var rows = table.days.map(function (day) {
      return dayRow(day.day, day, table.currency, day.flagged ? "out" : null);
    });
    rows.push(dayRow("Period", table.total, table.currency, "total"));
    var details = el("details", { class: "days" }, [
      el("summary", { text: "Per day (" + table.days.length + ")" }),
      el("table", { class: "grid-table" }, [headRow(names), el("tbody", {}, rows)]),
    ]);
    if (table.days.length <= 14) details.open = true;
    return details;
  }

  function dayRow(label, period, currency, className) {
    var all = period.all_bets;
    var flags = SLICES.filter(function (slice) {
      return period[slice[0]] && period[slice[0]].outside_band;
    }).map(function (slice) {
      return slice[1].toLowerCase();
    });
    return row(
      [
        label,
        count(period.rounds),
        money(all.handle, currency),
        money(all.wins, currency),
        { text: money(all.ggr, currency), class: all.ggr < 0 ? "neg" : null },
        pct(all.hold),
        { text: pct(all.observed_rtp), class: all.outside_band ? "flag" : null },
        theoBand(all),
        signed(all.z_score),
        { text: pct(period.ante_game.observed_rtp), class: period.ante_game.outside_band ? "flag" : null },
        { text: pct(period.tie_bet.observed_rtp), class: period.tie_bet.outside_band ? "flag" : null },
        pct(period.decisions.war_share, 0),
        {
          text: flags.length ? "⚑" : "",
          class: "flag",
          title: flags.length ? "outside the band: " + flags.join(", ") : null,
        },
      ],
      className
    );
  }

  // ---------------------------------------------------------------- funnel chart

  function funnel(table, sliceKey) {
    var total = table.total[sliceKey];
    if (total.theoretical_rtp === null || total.std_dev === null || !total.rounds) {
      return el("p", { class: "empty", text: "No stakes on this bet in the period." });
    }
    var theo = total.theoretical_rtp;
    // The spread of one round, as the period's bets make it: the funnel at n rounds is
    // theo +/- z * sigma / sqrt(n).
    var sigma = total.std_dev * Math.sqrt(total.rounds);
    var points = table.days
      .map(function (day) {
        var f = day[sliceKey];
        return { n: f.rounds, y: f.observed_rtp, out: f.outside_band, label: day.day, f: f };
      })
      .filter(function (p) {
        return p.n > 0 && p.y !== null;
      });
    var whole = { n: total.rounds, y: total.observed_rtp, out: total.outside_band, label: "Period", f: total };

    var W = 600, H = 320, left = 70, right = 16, top = 14, bottom = 44;
    var plotW = W - left - right, plotH = H - top - bottom;
    var ns = points.map(function (p) { return p.n; }).concat([whole.n]);
    var nMin = Math.max(1, Math.min.apply(null, ns) / 2);
    var nMax = Math.max.apply(null, ns) * 2;
    if (nMax / nMin < 100) nMax = nMin * 100;
    var lx0 = Math.log10(nMin), lx1 = Math.log10(nMax);
    function x(n) {
      return left + ((Math.log10(n) - lx0) / (lx1 - lx0)) * plotW;
    }
    // Vertical range: every point, and the 95 % funnel at the smallest sample shown.
    var widest = Z95 * sigma / Math.sqrt(Math.min.apply(null, ns));
    var ys = points.map(function (p) { return p.y; }).concat([whole.y, theo - widest, theo + widest]);
    var y0 = Math.min.apply(null, ys), y1 = Math.max.apply(null, ys);
    var pad = (y1 - y0) * 0.08 || 0.01;
    y0 -= pad;
    y1 += pad;
    function y(v) {
      return top + (1 - (v - y0) / (y1 - y0)) * plotH;
    }

    var chartId = "clip-" + table.table_id + "-" + table.currency + "-" + sliceKey;
    var root = svg("svg", {
      viewBox: "0 0 " + W + " " + H,
      role: "img",
      "aria-label": "Funnel chart of observed RTP against rounds for " + table.table_id,
    });
    root.appendChild(
      svg("defs", {}, [
        svg("clipPath", { id: chartId }, [
          svg("rect", { x: left, y: top, width: plotW, height: plotH }),
        ]),
      ])
    );

    // Grid and ticks.
    yTicks(y0, y1).forEach(function (v) {
      root.appendChild(svg("line", { class: "grid", x1: left, x2: W - right, y1: y(v), y2: y(v) }));
      root.appendChild(
        svg("text", { class: "tick", x: left - 6, y: y(v) + 4, "text-anchor": "end", text: pct(v, tickDigits(y1 - y0)) })
      );
    });
    for (var e = Math.ceil(lx0); e <= Math.floor(lx1); e++) {
      var n = Math.pow(10, e);
      root.appendChild(svg("line", { class: "grid", x1: x(n), x2: x(n), y1: top, y2: top + plotH }));
      root.appendChild(
        svg("text", { class: "tick", x: x(n), y: top + plotH + 16, "text-anchor": "middle", text: shortCount(n) })
      );
    }

    // The funnel: 95 % shaded, 99.8 % dashed, the theoretical RTP in the middle.
    var clipped = svg("g", { "clip-path": "url(#" + chartId + ")" });
    var steps = 80, upper = [], lower = [], upperOut = [], lowerOut = [];
    for (var i = 0; i <= steps; i++) {
      var nn = Math.pow(10, lx0 + ((lx1 - lx0) * i) / steps);
      var half = sigma / Math.sqrt(nn);
      upper.push([x(nn), y(theo + Z95 * half)]);
      lower.push([x(nn), y(theo - Z95 * half)]);
      upperOut.push([x(nn), y(theo + Z998 * half)]);
      lowerOut.push([x(nn), y(theo - Z998 * half)]);
    }
    clipped.appendChild(svg("path", { class: "band", d: pathOf(upper.concat(lower.slice().reverse())) + "Z" }));
    clipped.appendChild(svg("path", { class: "band-edge", d: pathOf(upper) }));
    clipped.appendChild(svg("path", { class: "band-edge", d: pathOf(lower) }));
    clipped.appendChild(svg("path", { class: "band-outer", d: pathOf(upperOut) }));
    clipped.appendChild(svg("path", { class: "band-outer", d: pathOf(lowerOut) }));
    clipped.appendChild(svg("line", { class: "theo", x1: left, x2: W - right, y1: y(theo), y2: y(theo) }));
    root.appendChild(clipped);

    // Axes.
    root.appendChild(svg("line", { class: "axis", x1: left, x2: left, y1: top, y2: top + plotH }));
    root.appendChild(svg("line", { class: "axis", x1: left, x2: W - right, y1: top + plotH, y2: top + plotH }));
    root.appendChild(
      svg("text", { class: "axis-label", x: left + plotW / 2, y: H - 8, "text-anchor": "middle", text: "Rounds played (log scale)" })
    );
    root.appendChild(
      svg("text", {
        class: "axis-label",
        x: 12,
        y: top + plotH / 2,
        "text-anchor": "middle",
        transform: "rotate(-90 12 " + (top + plotH / 2) + ")",
        text: "Observed RTP",
      })
    );

    // Days, then the period on top.
    points.forEach(function (p) {
      root.appendChild(
        svg("circle", { class: "dot" + (p.out ? " out" : ""), cx: x(p.n), cy: y(p.y), r: 4.5 }, [
          svg("title", { text: tip(p, table.currency) }),
        ])
      );
    });
    var cx = x(whole.n), cy = y(whole.y), s = 7;
    root.appendChild(
      svg(
        "path",
        {
          class: "total" + (whole.out ? " out" : ""),
          d: "M" + cx + " " + (cy - s) + "L" + (cx + s) + " " + cy + "L" + cx + " " + (cy + s) + "L" + (cx - s) + " " + cy + "Z",
        },
        [svg("title", { text: tip(whole, table.currency) })]
      )
    );

    // Legend.
    var lx = W - right - 292, ly = top + plotH - 14;
    root.appendChild(svg("rect", { class: "legend-box", x: lx - 6, y: ly - 11, width: 292, height: 22, rx: 4 }));
    root.appendChild(svg("line", { class: "theo", x1: lx, x2: lx + 18, y1: ly, y2: ly }));
    root.appendChild(svg("text", { class: "legend", x: lx + 24, y: ly + 4, text: "theoretical " + pct(theo, 3) }));
    root.appendChild(svg("rect", { class: "band", x: lx + 150, y: ly - 6, width: 18, height: 12 }));
    root.appendChild(svg("text", { class: "legend", x: lx + 174, y: ly + 4, text: "95 %" }));
    root.appendChild(svg("line", { class: "band-outer", x1: lx + 214, x2: lx + 232, y1: ly, y2: ly }));
    root.appendChild(svg("text", { class: "legend", x: lx + 238, y: ly + 4, text: "99.8 %" }));
    return root;
  }

  function tip(point, currency) {
    return (
      point.label +
      ": " +
      count(point.n) +
      " rounds, RTP " +
      pct(point.y) +
      " (band " +
      band(point.f) +
      ", z " +
      signed(point.f.z_score) +
      "), GGR " +
      money(point.f.ggr, currency)
    );
  }

  function pathOf(points) {
    return points
      .map(function (p, i) {
        return (i ? "L" : "M") + p[0].toFixed(1) + " " + p[1].toFixed(1);
      })
      .join("");
  }

  function yTicks(lo, hi) {
    var span = hi - lo;
    var raw = span / 5;
    var magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
    var step = [1, 2, 2.5, 5, 10].map(function (m) { return m * magnitude; }).find(function (st) {
      return span / st <= 6;
    });
    var ticks = [];
    for (var v = Math.ceil(lo / step) * step; v <= hi + 1e-12; v += step) ticks.push(v);
    return ticks;
  }

  function tickDigits(span) {
    if (span >= 0.5) return 0;
    if (span >= 0.05) return 1;
    return 2;
  }

  function shortCount(n) {
    if (n >= 1e6) return n / 1e6 + "M";
    if (n >= 1e3) return n / 1e3 + "k";
    return String(n);
  }

  // ---------------------------------------------------------------- start

  function start() {
    var today = new Date();
    var monthAgo = new Date(today.getTime() - 29 * 86400000);
    $("since").value = isoDay(monthAgo);
    $("until").value = isoDay(today);
    var fromFragment = takeFragment();
    var saved = sessionStorage.getItem(TOKEN_KEY);
    if (saved) $("token").value = saved;
    $("query").addEventListener("submit", load);
    $("slice").addEventListener("change", function () {
      if (lastReport) render(lastReport);
    });
    $("forget").addEventListener("click", function () {
      sessionStorage.removeItem(TOKEN_KEY);
      $("token").value = "";
      setStatus("Token forgotten.", false);
    });
    if (saved || fromFragment) load();
  }

  start();
})();
