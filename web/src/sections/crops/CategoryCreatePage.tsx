// Add a product group (owners); the form is in CategoryForm.tsx.
import { CategoryCreatePage } from './CategoryForm';

export default CategoryCreatePage;
