// The position page: the board (chessground on 8x8, our own SVG on every other size), the moves
// grouped by result, the best line to step through, PGN to copy and download. Everything comes
// from /api/probe and /api/line.
import { Chessground } from "/assets/chessground.min.js";

const GLYPHS = { K: "\u2654", Q: "\u2655", R: "\u2656", B: "\u2657", N: "\u2658", P: "\u2659",
                 k: "\u265A", q: "\u265B", r: "\u265C", b: "\u265D", n: "\u265E", p: "\u265F" };
let flipped = false;
let current = null;
let ground = null;

function parsePlacement(fen) {
  const rows = fen.split(" ")[0].split("/");
  const board = rows.map(row => {
    const cells = [];
    let digits = "";
    for (const c of row) {
      if (c >= "0" && c <= "9") { digits += c; continue; }
      if (digits) { for (let i = 0; i < Number(digits); i++) cells.push(null); digits = ""; }
      cells.push(c);
    }
    if (digits) for (let i = 0; i < Number(digits); i++) cells.push(null);
    return cells;
  });
  return board; // board[0] is the top rank
}

function drawBoard(fen, highlight) {
  const rows = parsePlacement(fen);
  if (rows.length === 8 && rows[0].length === 8) return drawGround(fen, highlight);
  ground = null;
  document.getElementById("board").className = "";
  const ranks = rows.length, files = rows[0].length, size = 60;
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${files * size + 20} ${ranks * size + 20}`);
  svg.setAttribute("data-files", files);
  svg.setAttribute("data-ranks", ranks);
  for (let r = 0; r < ranks; r++) {
    for (let f = 0; f < files; f++) {
      const file = flipped ? files - 1 - f : f, row = flipped ? ranks - 1 - r : r;
      const rank = ranks - 1 - row;
      const name = fileName(file) + (rank + 1);
      const rect = document.createElementNS(ns, "rect");
      rect.setAttribute("x", 20 + f * size); rect.setAttribute("y", r * size);
      rect.setAttribute("width", size); rect.setAttribute("height", size);
      const light = (file + rank) % 2 === 1;
      rect.setAttribute("fill", highlight && highlight.includes(name) ? "#cdd26a" : light ? "#eeeed2" : "#769656");
      rect.setAttribute("data-square", name);
      svg.appendChild(rect);
      const man = rows[row][file];
      if (man) {
        const t = document.createElementNS(ns, "text");
        t.setAttribute("x", 20 + f * size + size / 2); t.setAttribute("y", r * size + size * 0.78);
        t.setAttribute("text-anchor", "middle"); t.setAttribute("font-size", size * 0.8);
        t.setAttribute("class", "man");
        t.textContent = GLYPHS[man] || "?";
        svg.appendChild(t);
      }
    }
  }
  for (let i = 0; i < files; i++) {
    const t = document.createElementNS(ns, "text");
    t.setAttribute("x", 20 + i * size + size / 2); t.setAttribute("y", ranks * size + 15);
    t.setAttribute("text-anchor", "middle"); t.setAttribute("font-size", 12);
    t.textContent = fileName(flipped ? files - 1 - i : i);
    svg.appendChild(t);
  }
  for (let i = 0; i < ranks; i++) {
    const t = document.createElementNS(ns, "text");
    t.setAttribute("x", 8); t.setAttribute("y", i * size + size / 2 + 4);
    t.setAttribute("text-anchor", "middle"); t.setAttribute("font-size", 12);
    t.textContent = flipped ? i + 1 : ranks - i;
    svg.appendChild(t);
  }
  const holder = document.getElementById("board");
  holder.replaceChildren(svg);
}

function fileName(i) { return String.fromCharCode(97 + i); }

// Chessground on 8x8: the side to move may drag or click-click any legal move.
function drawGround(fen, highlight) {
  const holder = document.getElementById("board");
  const color = fen.split(" ")[1] === "b" ? "black" : "white";
  const dests = new Map();
  if (current && current.fen === fen) {
    for (const m of current.moves) {
      const from = m.uci.slice(0, 2), to = m.uci.slice(2, 4);
      if (!dests.has(from)) dests.set(from, []);
      if (!dests.get(from).includes(to)) dests.get(from).push(to);
    }
  }
  const config = {
    fen: fen.split(" ")[0],
    orientation: flipped ? "black" : "white",
    turnColor: color,
    lastMove: highlight,
    coordinates: true,
    movable: { free: false, color: color, dests: dests, showDests: true,
               events: { after: (orig, dest) => playFromBoard(orig, dest) } },
    premovable: { enabled: false },
    draggable: { showGhost: true },
  };
  if (!ground || !holder.classList.contains("cg-holder")) {
    holder.replaceChildren();
    holder.className = "cg-holder";
    ground = Chessground(holder, config);
  } else {
    ground.set(config);
  }
}

function playFromBoard(orig, dest) {
  const candidates = current.moves.filter(m => m.uci.slice(0, 4) === orig + dest);
  // A promotion defaults to the queen; the move list offers the others.
  const m = candidates.find(x => x.uci.length === 4 || x.uci.endsWith("q")) || candidates[0];
  if (m) load(m.fen, [orig, dest]);
}

function groupOf(move) {
  // The category is for the side to move after the move: its loss is the mover's win.
  if (move.category === "loss") return "win";
  if (move.category === "win") return "loss";
  return "draw";
}

async function getJson(url) {
  const response = await fetch(url);
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}

async function load(fen, highlight) {
  const status = document.getElementById("status");
  document.getElementById("fen").value = fen;
  try {
    const data = await getJson("/api/probe?fen=" + encodeURIComponent(fen));
    current = data;
    history.replaceState(null, "", "/?fen=" + encodeURIComponent(data.fen));
    drawBoard(data.fen, highlight);
    status.className = "";
    status.textContent = `${data.material} on ${data.board}. ${data.description}`;
    const groups = { win: [], draw: [], loss: [] };
    for (const m of data.moves) groups[groupOf(m)].push(m);
    const holder = document.getElementById("moves");
    holder.replaceChildren();
    const titles = { win: "Winning", draw: "Drawing", loss: "Losing" };
    for (const kind of ["win", "draw", "loss"]) {
      if (!groups[kind].length) continue;
      const div = document.createElement("div");
      div.className = "group " + kind;
      const h = document.createElement("h3");
      h.textContent = `${titles[kind]} (${groups[kind].length})`;
      div.appendChild(h);
      for (const m of groups[kind]) {
        const b = document.createElement("button");
        b.type = "button"; b.className = "move"; b.dataset.uci = m.uci;
        b.innerHTML = `<span class="san"></span><span class="detail"></span>`;
        b.querySelector(".san").textContent = m.san;
        b.querySelector(".detail").textContent = m.result;
        b.addEventListener("click", () => load(m.fen, [m.uci.slice(0, 2), m.uci.slice(2, 4)]));
        div.appendChild(b);
      }
      holder.appendChild(div);
    }
    if (!data.moves.length) holder.textContent = data.checkmate ? "Checkmate." : "Stalemate.";
    document.getElementById("line-steps").replaceChildren();
    document.getElementById("pgn-box").hidden = true;
  } catch (e) {
    status.className = "error";
    status.textContent = e.message;
  }
}

async function showLine() {
  if (!current) return;
  const data = await getJson("/api/line?fen=" + encodeURIComponent(current.fen));
  const steps = document.getElementById("line-steps");
  steps.replaceChildren();
  if (!data.line.length) { steps.textContent = "No forced mate: nothing to follow."; return; }
  // Replay the line by probing each position in turn.
  const fens = [data.fen];
  let probe = data;
  for (const uci of data.line) {
    const m = probe.moves.find(x => x.uci === uci);
    fens.push(m.fen);
    probe = await getJson("/api/probe?fen=" + encodeURIComponent(m.fen));
  }
  const black = data.fen.split(" ")[1] === "b";
  data.line_san.forEach((san, i) => {
    const ply = i + (black ? 1 : 0);
    if (ply % 2 === 0 || i === 0) {
      const n = document.createElement("span");
      n.className = "number";
      n.textContent = `${Math.floor(ply / 2) + 1}.${ply % 2 === 1 ? ".." : ""}`;
      steps.appendChild(n);
    }
    const s = document.createElement("span");
    s.className = "step"; s.textContent = san;
    s.addEventListener("click", () => {
      for (const x of steps.querySelectorAll(".step")) x.classList.remove("current");
      s.classList.add("current");
      drawBoard(fens[i + 1], [data.line[i].slice(0, 2), data.line[i].slice(2, 4)]);
    });
    steps.appendChild(s);
  });
  const pgn = document.getElementById("pgn");
  pgn.value = data.pgn;
  document.getElementById("download-pgn").href = "data:application/x-chess-pgn," + encodeURIComponent(data.pgn);
  document.getElementById("pgn-box").hidden = false;
}

document.getElementById("fen-form").addEventListener("submit", e => {
  e.preventDefault();
  load(document.getElementById("fen").value.trim());
});
document.getElementById("flip").addEventListener("click", () => {
  flipped = !flipped;
  if (current) drawBoard(current.fen);
});
document.getElementById("show-line").addEventListener("click", () => showLine().catch(e => {
  document.getElementById("line-steps").textContent = e.message;
}));
document.getElementById("copy-pgn").addEventListener("click", () => {
  navigator.clipboard && navigator.clipboard.writeText(document.getElementById("pgn").value);
});

const params = new URLSearchParams(location.search);
load(params.get("fen") || "8/8/8/8/8/2k5/1R6/K7 w - - 0 1");
