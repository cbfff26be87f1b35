BxJ`ê˜Aò“KÁN;Áì5qAÉ_ÁçúA»PAáœó?Hµ9?'3lÁ#Q–At+"A±qU@AƒAlÝ€ÀmˆEÁj÷¿oÅ²À
(KÁâŒ”@<PA_wWAkßLA*¨n¿