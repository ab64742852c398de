/**
 * One SSE frame: `id`, `event` and `data` lines, where data is `{ seq, type, data }`.
 * Built once per event by string concatenation around the already-serialized data.
 */
export function sseFrame(seq: number, type: string, dataJson: string): string {
  return `${framePrefix(seq, type)}${dataJson}${FRAME_SUFFIX}`;
}

const FRAME_SUFFIX = '}\n\n';

function framePrefix(seq: number, type: string): string {
  return `id: ${seq}\nevent: ${type}\ndata: {"seq":${seq},"type":"${type}","data":`;
}

/**
 * The serialized data of a frame built by `sseFrame` for this seq and type: a transport that carries
 * only the frame (one copy of the data on the wire) gives subscribers the data back without parsing.
 */
export function dataJsonOfFrame(seq: number, type: string, frame: string): string {
  const prefix = framePrefix(seq, type);
  if (!frame.startsWith(prefix) || !frame.endsWith(FRAME_SUFFIX)) {
    throw new Error(`not the SSE frame of event ${seq} (${type})`);
  }
  return frame.slice(prefix.length, frame.length - FRAME_SUFFIX.length);
}
