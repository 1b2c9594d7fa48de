// The position page: the board (chessground on 8x8, our own SVG on every other size), the value
// by depth to mate and under the fifty-move rule, the moves grouped by result, the best line to
// step through, PGN to copy and download. Everything comes from /api/probe and /api/line.
import { Chessground } from "/assets/chessground.min.js";
import { drawSvgBoard, getJson, lineFens, parsePlacement, placementOf } from "/assets/board.js";

let flipped = false;
let current = null;
let ground = null;
let editing = false;
let editRows = null;
let editPiece = "K";
let playing = null; // the side the user plays against the table: "w", "b" or null

function drawBoard(fen, highlight) {
  const rows = parsePlacement(fen);
  if (editing) {
    ground = null;
    return drawSvgBoard(document.getElementById("board"), fen, { flipped, onSquare: editSquare });
  }
  if (rows.length === 8 && rows[0].length === 8) return drawGround(fen, highlight);
  ground = null;
  drawSvgBoard(document.getElementById("board"), fen, { flipped, highlight: highlight || [] });
}

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

// The category is for the side to move after the move: its loss is the mover's win. Under the
// fifty-move rule a blessed loss left to the opponent is the mover's cursed win.
const MOVER = { "loss": "win", "blessed-loss": "cursed", "draw": "draw", "cursed-win": "blessed", "win": "loss" };

function groupOf(move) {
  return MOVER[move.category] || "draw";
}

// What the fifty-move rule says of the position, and why a cursed win is not a win.
function ruleText(data) {
  if (data.wdl50 === null || data.wdl50 === undefined) return "";
  const names = { "win": "a win", "cursed-win": "a cursed win", "draw": "a draw",
                  "blessed-loss": "a blessed loss", "loss": "a loss" };
  const clock = data.halfmove_clock ? ` at halfmove clock ${data.halfmove_clock}` : "";
  let text = `Under the fifty-move rule${clock}: ${names[data.wdl50]}`;
  if (data.dtz !== 0) text += `, DTZ50 ${data.dtz} plies (distance to the next capture or pawn move, or mate)`;
  text += ".";
  if (data.wdl50 === "cursed-win") {
    text += " Cursed: mate can be forced, but not before the defender may claim a draw — a hundred plies without a capture or a pawn move.";
  } else if (data.wdl50 === "blessed-loss") {
    text += " Blessed: the opponent can force mate, but not before the draw may be claimed under the fifty-move rule.";
  }
  return text;
}

function moveDetail(m) {
  const parts = [];
  if (m.result) parts.push(m.result);
  if (m.dtz !== undefined && m.dtz !== null) {
    parts.push(m.dtz === 0 ? "DTZ50 0" : `DTZ50 ${m.dtz} after it`);
    if (m.zeroing) parts.push("zeroing");
  }
  return parts.join(" · ");
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
    const rule = document.getElementById("rule");
    rule.textContent = ruleText(data);
    rule.className = data.wdl50 === "cursed-win" || data.wdl50 === "blessed-loss" ? "cursed" : "";
    const groups = { win: [], cursed: [], draw: [], blessed: [], loss: [] };
    for (const m of data.moves) groups[groupOf(m)].push(m);
    const holder = document.getElementById("moves");
    holder.replaceChildren();
    const titles = { win: "Winning", cursed: "Cursed win (drawn by the fifty-move rule)", draw: "Drawing",
                     blessed: "Blessed loss (drawn by the fifty-move rule)", loss: "Losing" };
    for (const kind of ["win", "cursed", "draw", "blessed", "loss"]) {
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
        b.querySelector(".detail").textContent = moveDetail(m);
        b.addEventListener("click", () => load(m.fen, [m.uci.slice(0, 2), m.uci.slice(2, 4)]));
        div.appendChild(b);
      }
      holder.appendChild(div);
    }
    if (!data.moves.length) holder.textContent = data.checkmate ? "Checkmate." : "Stalemate.";
    document.getElementById("line-steps").replaceChildren();
    document.getElementById("pgn-box").hidden = true;
    if (playing) {
      const toMove = data.fen.split(" ")[1];
      status.textContent += playing === toMove
        ? " — your move."
        : data.moves.length ? " — the table is thinking…" : "";
      if (toMove !== playing && data.moves.length) {
        const best = data.moves[0]; // best first for the side to move
        setTimeout(() => load(best.fen, [best.uci.slice(0, 2), best.uci.slice(2, 4)]), 300);
      }
    }
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
  const fens = await lineFens(data);
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
  if (!data.pgn) return; // the line follows DTZ50: no DTM table, no PGN to the mate
  const pgn = document.getElementById("pgn");
  pgn.value = data.pgn;
  document.getElementById("download-pgn").href = "data:application/x-chess-pgn," + encodeURIComponent(data.pgn);
  document.getElementById("pgn-box").hidden = false;
}

// The board editor: place and remove men on a board of any size, choose the side to move.
function editFen() {
  return placementOf(editRows) + " " + document.getElementById("edit-side").value + " - - 0 1";
}

function showEdited() {
  document.getElementById("fen").value = editFen();
  document.getElementById("status").className = "";
  document.getElementById("status").textContent = "Editing: press Done to probe the position.";
  document.getElementById("moves").replaceChildren();
  drawBoard(editFen());
}

function editSquare(name) {
  const file = name.charCodeAt(0) - 97, rank = Number(name.slice(1)) - 1;
  const row = editRows.length - 1 - rank;
  const here = editRows[row][file];
  editRows[row][file] = editPiece === "x" || here === editPiece ? null : editPiece;
  showEdited();
}

function resizeEdit() {
  const files = Math.min(16, Math.max(1, Number(document.getElementById("edit-files").value) || 8));
  const ranks = Math.min(16, Math.max(1, Number(document.getElementById("edit-ranks").value) || 8));
  const old = editRows;
  editRows = Array.from({ length: ranks }, (_, r) => Array.from({ length: files }, (_, f) => {
    const oldRow = old.length - ranks + r; // keep rank numbers: align the bottom ranks
    return oldRow >= 0 && oldRow < old.length && f < old[oldRow].length ? old[oldRow][f] : null;
  }));
  showEdited();
}

document.getElementById("edit").addEventListener("click", () => {
  editing = true;
  const fen = current ? current.fen : document.getElementById("fen").value;
  editRows = parsePlacement(fen);
  document.getElementById("edit-side").value = fen.split(" ")[1] === "b" ? "b" : "w";
  document.getElementById("edit-files").value = editRows[0].length;
  document.getElementById("edit-ranks").value = editRows.length;
  document.getElementById("editor").hidden = false;
  showEdited();
});
for (const b of document.querySelectorAll(".palette-piece")) {
  b.addEventListener("click", () => {
    editPiece = b.dataset.piece;
    for (const x of document.querySelectorAll(".palette-piece")) x.classList.toggle("chosen", x === b);
  });
}
document.getElementById("edit-side").addEventListener("change", showEdited);
document.getElementById("edit-files").addEventListener("change", resizeEdit);
document.getElementById("edit-ranks").addEventListener("change", resizeEdit);
document.getElementById("edit-clear").addEventListener("click", () => {
  editRows = editRows.map(row => row.map(() => null));
  showEdited();
});
document.getElementById("edit-done").addEventListener("click", () => {
  editing = false;
  document.getElementById("editor").hidden = true;
  load(editFen());
});
document.getElementById("play").addEventListener("change", e => {
  playing = e.target.checked && current ? current.fen.split(" ")[1] : null;
  if (current) load(current.fen);
});

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
