/**
 * One SSE frame: `id`, `event` and `data` lines, where data is `{ seq, type, data }`.
 * Built once per event by string concatenation around the already-serialized data.
 */
export function sseFrame(seq: number, type: string, dataJson: string): string {
  return `id: ${seq}\nevent: ${type}\ndata: {"seq":${seq},"type":"${type}","data":${dataJson}}\n\n`;
}
