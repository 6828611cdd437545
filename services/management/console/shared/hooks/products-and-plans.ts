import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Plan, Product } from '../../../../../libs/contracts/index.js';

/**
 * The products and plans, loaded once after sign-in and again after a change, so every page can
 * name them and offer them in its filters and forms.
 */
export interface ProductsAndPlans {
  products: readonly Product[];
  plans: readonly Plan[];
  reload: () => void;
}

export const ProductsAndPlansContext = createContext<ProductsAndPlans>({
  products: [],
  plans: [],
  reload: () => {},
});

export function useProductsAndPlans(): ProductsAndPlans & {
  productTitle: (id: number | null) => string;
  planName: (id: number | null) => string;
} {
  const loaded = useContext(ProductsAndPlansContext);
  return {
    ...loaded,
    productTitle: (id) =>
      id === null
        ? 'No product'
        : (loaded.products.find((product) => product.id === id)?.title ?? `Product ${id}`),
    planName: (id) =>
      id === null
        ? 'All plans'
        : (loaded.plans.find((plan) => plan.id === id)?.name ?? `Plan ${id}`),
  };
}
