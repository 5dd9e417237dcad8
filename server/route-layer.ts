// The route a request's path and method name, for middleware that runs outside every router
// (the action log, metrics): createApp sets `routeLayer` on each request's state.

import type Router from '@koa/router';
import type { Context } from 'koa';

/** A route of one of the app's routers. */
export type RouteLayer = Router['stack'][number];

/** Set on every request by createApp: the route a request's path and method name, if any. */
export interface RouteLayerState { routeLayerOf?: (ctx: Context) => RouteLayer | undefined }
