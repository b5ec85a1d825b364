// A typed bot against the declarations (tsc --noEmit -p clients/js checks it): it joins a table
// as a seat, plays random legal commands to the end, and verifies the game's transcript.

import {
  Connection, TableSession, openSession, verifyTranscript, type Command, type Transcript,
} from "@echoridge/client";
import { apply } from "@echoridge/client/delta";
import { encodeMsgpack, decodeMsgpack } from "@echoridge/client/codec";
import { entryText, loadLogText } from "@echoridge/client/logtext";

export async function playOnce(url: string, table: string, token: string): Promise<boolean> {
  const seat = new TableSession({ url, table, token, subprotocol: "echoridge.v2.msgpack" });
  await seat.start();
  const pick = (_view: unknown, legal: Command[]): Command => legal[Math.floor(Math.random() * legal.length)];
  await seat.play(pick, { seconds: 300 });
  seat.close();

  const [lobby]: [Connection, unknown] = await openSession(url, {}, { onMessage() {}, onClose() {} });
  const reply = await lobby.request({ type: "transcript", table });
  lobby.close();
  const report = await verifyTranscript(reply.transcript as unknown as Transcript);
  const text = await loadLogText("clients/python/echoridge_client/logtext.en.json");
  const first = seat.log[0];
  if (first) console.log(entryText(text, first.e, { seat: seat.seat }));
  const same = decodeMsgpack(encodeMsgpack({ type: "ping", id: "p-1" }));
  console.log(same.type, apply({ a: 1 }, [["set", ["a"], 2]]));
  return report.ok;
}
