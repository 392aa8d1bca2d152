// A layer whose picture comes whole from elsewhere (a cascaded WMS layer: the remote's GetMap for
// the request's box and size, fetched on the event loop's thread by services/cascade): the encoded
// image travels to the worker, which decodes it to RGBA and composes it like any layer.
import sharp from 'sharp'

export interface ImageJob {
  kind: 'image'
  /** <workspace>:<layer>, for messages. */
  layer: string
  width: number
  height: number
  /** The encoded image (PNG, JPEG...), drawn at width x height. */
  data: Uint8Array
}

export function isImageJob (job: object): job is ImageJob { return (job as { kind?: unknown }).kind === 'image' }

/** The image as straight-alpha RGBA of the job's size (a picture of another size is scaled to it). */
export async function drawImage (job: ImageJob): Promise<Uint8Array> {
  let img = sharp(job.data).ensureAlpha()
  const meta = await sharp(job.data).metadata()
  if (meta.width !== job.width || meta.height !== job.height) img = img.resize(job.width, job.height, { fit: 'fill' })
  const raw = await img.raw().toBuffer()
  return new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength)
}
