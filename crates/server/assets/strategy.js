// The KRK strategy page: on an n×n board, the strategy's move and its kind beside the table's
// optimal move, played out against the table's best defence. From /api/strategy/krk and
// /api/probe.
import { drawSvgBoard, getJson, placementOf } from "/assets/board.js";

let fen = null;

function startFor(n) {
  // White king in the corner, the rook beside it, the black king in the middle.
  const rows = [];
  const mid = Math.floor(n / 2);
  for (let r = n - 1; r >= 0; r--) {
    const cells = Array(n).fill(null);
    if (r === 0) cells[0] = "K";
    if (r === 1) cells[1] = "R";
    if (r === mid && mid > 2) cells[mid] = "k";
    if (mid <= 2 && r === n - 1) cells[n - 1] = "k";
    rows.push(cells);
  }
  return placementOf(rows) + " w - - 0 1";
}

async function show(newFen, highlight) {
  fen = newFen;
  document.getElementById("fen").value = fen;
  drawSvgBoard(document.getElementById("board"), fen, { highlight: highlight || [] });
  const status = document.getElementById("status");
  status.className = "";
  const white = fen.split(" ")[1] === "w";
  try {
    if (!white) return;
    const n = fen.split(" ")[0].split("/").length;
    const s = await getJson(`/api/strategy/krk?fen=${encodeURIComponent(fen)}&board=${n}`);
    document.getElementById("strategy-move").textContent = s.san || s.move || "none";
    document.getElementById("strategy-kind").textContent = s.kind || "–";
    document.getElementById("optimal-move").textContent = s.optimal ? s.optimal.san : "no table";
    document.getElementById("optimal-dtm").textContent = s.optimal
      ? `mate in ${Math.ceil(-s.optimal.dtm / 2) + 1} (${-s.optimal.dtm + 1} plies)` : `build it: retro gen KRvK --board ${n}x${n}`;
    status.textContent = `White to move on ${n}x${n}.`;
  } catch (e) {
    status.className = "error";
    status.textContent = e.message;
  }
}

async function step() {
  const n = fen.split(" ")[0].split("/").length;
  const s = await getJson(`/api/strategy/krk?fen=${encodeURIComponent(fen)}&board=${n}`);
  if (!s.move) return;
  const history = document.getElementById("history");
  const li = document.createElement("li");
  li.textContent = `${s.san || s.move} (${s.kind})`;
  history.appendChild(li);
  // Black's best defence from the table, when it is built.
  let after = s.after, mark = [s.move.slice(0, 2), s.move.slice(2, 4)];
  try {
    const p = await getJson(`/api/probe?fen=${encodeURIComponent(after)}`);
    if (p.moves.length) {
      const best = p.moves[0];
      li.textContent += ` … ${best.san}`;
      after = best.fen;
      mark = [best.uci.slice(0, 2), best.uci.slice(2, 4)];
    } else {
      li.textContent += p.checkmate ? " — checkmate" : " — stalemate";
      document.getElementById("status").textContent = p.checkmate ? "Checkmate." : "Stalemate.";
      drawSvgBoard(document.getElementById("board"), after, { highlight: mark });
      fen = after;
      return;
    }
  } catch (e) {
    document.getElementById("status").textContent = e.message;
    return;
  }
  await show(after, mark);
}

document.getElementById("krk-form").addEventListener("submit", e => {
  e.preventDefault();
  document.getElementById("history").replaceChildren();
  show(document.getElementById("fen").value.trim());
});
document.getElementById("new-game").addEventListener("click", () => {
  document.getElementById("history").replaceChildren();
  show(startFor(Number(document.getElementById("n").value) || 8));
});
document.getElementById("step").addEventListener("click", () => step());

const params = new URLSearchParams(location.search);
const n = Number(params.get("board")) || 8;
document.getElementById("n").value = n;
show(params.get("fen") || startFor(n));
