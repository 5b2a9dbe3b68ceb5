/** The UpstreamError a sign-in step must fail with (anything else, or success, fails the test). */
import { UpstreamError } from '../../packages/mcp-edge/src/oauth/index.ts'

export async function refusal(call: Promise<unknown>): Promise<UpstreamError> {
  try {
    await call
  } catch (error) {
    if (error instanceof UpstreamError) return error
    throw error
  }
  throw new Error('expected an UpstreamError')
}
