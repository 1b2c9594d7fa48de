// The learning pages, after Hurd's: /learn lists the built endgames; /learn/MATERIAL shows the
// Table 1 row beside the paper's, the counts, a chart of positions by depth for each side to
// move, the longest wins (open them on the position page to follow the best defence) and the
// mutual zugzwangs. Everything comes from /api/tables and /api/learn.
import { drawSvgBoard, getJson, lineFens } from "/assets/board.js";

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const c of children) e.append(c);
  return e;
}

function positionLink(fen, text) {
  return el("a", { href: "/?fen=" + encodeURIComponent(fen) }, text || fen);
}

async function showIndex() {
  const tables = await getJson("/api/tables");
  const list = el("ul", { class: "materials" });
  for (const t of tables) {
    const href = `/learn/${t.material}` + (t.board === "8x8" ? "" : `?board=${t.board}`);
    list.append(el("li", {}, el("a", { href }, `${t.material}`), ` on ${t.board}`));
  }
  document.getElementById("index").replaceChildren(
    tables.length ? list : "No tables yet: build some with retro gen.");
}

function chart(stats) {
  // One bar per depth in plies, White to move above the axis, Black to move below.
  const ns = "http://www.w3.org/2000/svg";
  const series = [["white_to_move", "#1d6b2a"], ["black_to_move", "#a02020"]];
  const depths = new Set();
  let most = 1;
  for (const [side] of series) {
    for (const d of stats[side].positions_by_plies) {
      depths.add(d.plies);
      most = Math.max(most, d.raw);
    }
  }
  const max = Math.max(0, ...depths);
  const width = 760, height = 320, left = 60, barw = Math.max(2, (width - left - 10) / (max + 1));
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height + 40}`);
  svg.setAttribute("class", "depth-chart");
  const mid = height / 2;
  const axis = document.createElementNS(ns, "line");
  axis.setAttribute("x1", left); axis.setAttribute("x2", width);
  axis.setAttribute("y1", mid); axis.setAttribute("y2", mid);
  axis.setAttribute("stroke", "#333");
  svg.appendChild(axis);
  for (const [side, colour] of series) {
    for (const d of stats[side].positions_by_plies) {
      const h = (d.raw / most) * (mid - 10);
      const bar = document.createElementNS(ns, "rect");
      bar.setAttribute("class", "bar");
      bar.setAttribute("x", left + d.plies * barw);
      bar.setAttribute("width", Math.max(1, barw - 1));
      bar.setAttribute("y", side === "white_to_move" ? mid - h : mid);
      bar.setAttribute("height", h);
      bar.setAttribute("fill", colour);
      const title = document.createElementNS(ns, "title");
      title.textContent = `${side === "white_to_move" ? "White" : "Black"} to move, ${d.plies} plies: ${d.raw} positions (${d.unique} up to symmetry)`;
      bar.appendChild(title);
      svg.appendChild(bar);
    }
  }
  const label = (x, y, text, anchor) => {
    const t = document.createElementNS(ns, "text");
    t.setAttribute("x", x); t.setAttribute("y", y); t.setAttribute("font-size", 12);
    t.setAttribute("text-anchor", anchor || "start");
    t.textContent = text;
    svg.appendChild(t);
  };
  label(4, 14, `${most} positions`);
  label(4, mid - 4, "White to move ↑");
  label(4, mid + 14, "Black to move ↓");
  for (let p = 0; p <= max; p += Math.max(1, Math.ceil(max / 10))) {
    label(left + p * barw + barw / 2, height + 16, String(p), "middle");
  }
  label(width / 2, height + 34, "depth to mate in plies (odd: the side to move mates; even: it is mated)", "middle");
  return svg;
}

function countsTable(stats) {
  const t = el("table", { class: "counts" });
  t.append(el("tr", {}, el("th", {}, ""), el("th", {}, "legal"), el("th", {}, "win"),
                        el("th", {}, "draw"), el("th", {}, "loss"), el("th", {}, "longest")));
  for (const [side, name] of [["white_to_move", "White to move"], ["black_to_move", "Black to move"]]) {
    const s = stats[side];
    const longest = s.longest_win ? `mate in ${s.longest_win.moves} (${s.longest_win.plies} plies)`
                  : s.longest_loss ? `mated in ${s.longest_loss.moves} (${s.longest_loss.plies} plies)` : "–";
    t.append(el("tr", {}, el("th", {}, name), el("td", {}, String(s.legal.raw)),
      el("td", {}, String(s.win.raw)), el("td", {}, String(s.draw.raw)),
      el("td", {}, String(s.loss.raw)), el("td", {}, longest)));
  }
  return el("div", {}, el("h3", {}, "Positions (placements on the board)"), t);
}

function table1Rows(rows) {
  if (!rows.length) return "";
  const t = el("table", { class: "counts" });
  t.append(el("tr", {}, ...["Hurd's category", "", "WTM most moves", "WTM wins", "WTM legal",
                             "BTM most moves", "BTM wins", "BTM legal"].map(h => el("th", {}, h))));
  for (const r of rows) {
    for (const [who, row] of [["retro", r.ours], ["paper", r.paper]]) {
      t.append(el("tr", { class: r.equal ? "equal" : "differs" },
        el("td", {}, row.material), el("td", {}, who),
        ...["wtm_max_moves", "wtm_win", "wtm_legal", "btm_max_moves", "btm_win", "btm_legal"]
          .map(k => el("td", {}, row[k] === null ? "–" : String(row[k])))));
    }
  }
  return el("div", {}, el("h3", {}, "Hurd's Table 1, beside the paper"), t);
}

// The best line from `fen` (the fastest mate against the longest defence), stepped through on
// a small board inside `viewer`.
async function stepThrough(fen, viewer) {
  const line = await getJson("/api/line?fen=" + encodeURIComponent(fen));
  const fens = await lineFens(line);
  const board = el("div", { class: "mini-board" });
  const caption = el("p", { class: "caption" });
  const show = i => {
    drawSvgBoard(board, fens[i], { highlight: i ? [line.line[i - 1].slice(0, 2), line.line[i - 1].slice(2, 4)] : [] });
    caption.textContent = i ? `after ${line.line_san.slice(0, i).join(" ")}` : "the position";
    index = i;
  };
  let index = 0;
  const back = el("button", { type: "button" }, "◀");
  const next = el("button", { type: "button", class: "next" }, "▶");
  back.addEventListener("click", () => show(Math.max(0, index - 1)));
  next.addEventListener("click", () => show(Math.min(fens.length - 1, index + 1)));
  viewer.replaceChildren(board, el("div", {}, back, " ", next), caption);
  show(0);
}

async function showMaterial(material) {
  const board = new URLSearchParams(location.search).get("board") || "8x8";
  document.getElementById("title").textContent = `${material} on ${board}`;
  const data = await getJson(`/api/learn/${encodeURIComponent(material)}?board=${board}`);
  document.getElementById("table1").replaceChildren(table1Rows(data.table1));
  document.getElementById("counts").replaceChildren(countsTable(data.stats));
  document.getElementById("chart-title").hidden = false;
  document.getElementById("chart").replaceChildren(chart(data.stats));
  const longest = el("div", {}, el("h3", {}, "The longest wins, with the best defence"));
  for (const [side, key] of [["white_to_move", "longest_win"], ["black_to_move", "longest_win"],
                             ["white_to_move", "longest_loss"], ["black_to_move", "longest_loss"]]) {
    const l = data.stats[side][key];
    if (!l) continue;
    const what = key === "longest_win" ? `mate in ${l.moves} (${l.plies} plies)` : `mated in ${l.moves} (${l.plies} plies)`;
    const button = el("button", { type: "button", class: "step-through" }, "Step through the best line");
    const viewer = el("div", { class: "line-viewer" });
    button.addEventListener("click", () => stepThrough(l.fen, viewer));
    longest.append(el("p", {}, `${side === "white_to_move" ? "White" : "Black"} to move, ${what}: `,
                      positionLink(l.fen), " ", button), viewer);
  }
  document.getElementById("longest").replaceChildren(longest);
  const z = data.zugzwangs;
  const zz = el("div", {}, el("h3", {}, "Mutual zugzwangs"),
    el("p", {}, z.total === 0 ? "None: the side to move is never worse off for having the move."
      : `${z.total} placements up to symmetry where whoever moves is worse off: ${z.draw_win} where White to move draws but Black to move loses, ${z.loss_draw} where White to move loses but Black to move draws, ${z.loss_win} where whoever moves loses.`));
  if (z.examples.length) {
    const list = el("ul", {});
    for (const fen of z.examples) list.append(el("li", {}, positionLink(fen)));
    zz.append(list);
  }
  document.getElementById("zugzwangs").replaceChildren(zz);
}

const match = location.pathname.match(/^\/learn\/([A-Za-z_]+)$/);
const status = document.getElementById("status");
(match ? showMaterial(match[1]) : showIndex())
  .then(() => { status.textContent = ""; })
  .catch(e => { status.className = "error"; status.textContent = e.message; });
