// {base}/metrics: the Prometheus text exposition format (plugins/metrics).
import { Type } from '@fastify/type-provider-typebox'

export const responses = {
  metrics: { 200: { description: 'Every metric of this instance, in the Prometheus text format 0.0.4', content: { 'text/plain; version=0.0.4': { schema: Type.String() } } } }
}
