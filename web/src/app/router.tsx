// The routes: one per row of the sections table (and one per page inside a section), under
// /manage. Every page is lazy-loaded: its code is fetched the first time it is opened.
import {
  type AnyRoute,
  createRootRoute,
  createRoute,
  createRouter,
  lazyRouteComponent,
} from '@tanstack/react-router';
import { Loading } from '../ui/States';
import { requestPageFocus } from './focus';
import { NotFound, Shell } from './Shell';
import { SECTIONS } from './sections';

const rootRoute = createRootRoute({ component: Shell, notFoundComponent: NotFound });

const sectionRoutes: AnyRoute[] = SECTIONS.map((section) => {
  const route = createRoute({
    getParentRoute: () => rootRoute,
    path: section.path,
    component: lazyRouteComponent(section.page),
  });
  if (!section.children) return route;
  return route.addChildren(
    section.children.map((child) =>
      createRoute({
        getParentRoute: () => route,
        path: child.path,
        component: lazyRouteComponent(child.page),
      }),
    ),
  ) as AnyRoute;
});

export const router = createRouter({
  routeTree: rootRoute.addChildren(sectionRoutes),
  basepath: '/manage',
  defaultPendingComponent: () => <Loading />,
  // Show the page's loading state only when its code takes a while to arrive.
  defaultPendingMs: 300,
  scrollRestoration: true,
});

// A move to another page (a link, back or forward) gives the new page's heading the focus.
router.subscribe('onBeforeNavigate', (event) => {
  if (event.fromLocation && event.pathChanged) requestPageFocus();
});
