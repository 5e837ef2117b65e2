// Edit a product group (owners); the form is in CategoryForm.tsx.
import { CategoryEditPage } from './CategoryForm';

export default CategoryEditPage;
