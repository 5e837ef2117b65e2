// Edit a crop or an animal (owners); the form is in CropForm.tsx.
import { CropEditPage } from './CropForm';

export default CropEditPage;
