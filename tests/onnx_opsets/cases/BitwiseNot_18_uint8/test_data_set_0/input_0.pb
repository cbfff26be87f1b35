BxJ
p7‘hf